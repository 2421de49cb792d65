// Diagnostics on the form, after GOV.UK's error message pattern: the message next to its field
// (aria-describedby), aria-invalid on the field for an error; a warning is marked, not invalid. The
// summary linking to each field is the result view's diagnostics list.

const LABEL = { error: "Error", warning: "Warning", info: "Note" };

function clear(fields) {
  for (const { wrapper, control, message, hintId } of fields) {
    wrapper.classList.remove("field--error", "field--warning");
    control.removeAttribute("aria-invalid");
    if (hintId) control.setAttribute("aria-describedby", hintId);
    else control.removeAttribute("aria-describedby");
    message.replaceChildren();
    message.hidden = true;
  }
}

/** Focus a field without touching the URL fragment (an ordinary #id link would replace #d=). */
export function focusField(field) {
  const target = field.control;
  target.scrollIntoView({ block: "center", behavior: "instant" });
  target.focus({ preventScroll: true });
}

/**
 * Mark every item's field. items: [{severity, path, message, rule}]; locate(path) -> field or null.
 * Returns, per item, the field it marked (or null), in order.
 */
export function mark(allFields, items, locate) {
  clear(allFields);
  return items.map((item) => {
    const field = locate(item.path ?? "");
    if (!field) return null;
    const severity = item.severity ?? "error";
    const line = document.createElement("p");
    line.className = `field__message-line field__message-line--${severity}`;
    const tag = document.createElement("span");
    tag.className = "visually-hidden";
    tag.textContent = `${LABEL[severity] ?? severity}: `;
    line.append(tag, item.message);
    if (item.rule) {
      const rule = document.createElement("code");
      rule.className = "rule-id";
      rule.textContent = item.rule;
      line.append(" ", rule);
    }
    field.message.append(line);
    field.message.hidden = false;
    const { wrapper, control, message } = field;
    if (severity === "error") {
      wrapper.classList.remove("field--warning");
      wrapper.classList.add("field--error");
      control.setAttribute("aria-invalid", "true");
    } else if (!wrapper.classList.contains("field--error")) {
      wrapper.classList.add("field--warning");
    }
    const ids = new Set((control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean));
    ids.add(message.id);
    control.setAttribute("aria-describedby", [...ids].join(" "));
    return field;
  });
}
