// Diagnostics on the form, after GOV.UK's error message and error summary patterns: the message next
// to its field (aria-describedby), aria-invalid on the field for an error, a summary linking to each.

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

/** The summary above the form: one link per item, each moving focus to its field. */
export function summarize(box, items, marked) {
  if (!items.length) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const errors = items.filter((i) => (i.severity ?? "error") === "error").length;
  box.classList.toggle("summary--warning", errors === 0);
  const title = document.createElement("h2");
  title.className = "summary__title";
  title.textContent = errors ? "There is a problem" : "Check these warnings";
  const list = document.createElement("ul");
  list.className = "summary__list";
  items.forEach((item, i) => {
    const li = document.createElement("li");
    li.className = `summary__item summary__item--${item.severity ?? "error"}`;
    const field = marked[i];
    const text = `${item.path ? `${item.path}: ` : ""}${item.message}`;
    if (field) {
      const link = document.createElement("a");
      link.href = `#${field.control.id}`;
      link.textContent = text;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        focusField(field);
      });
      li.append(link);
    } else li.append(text);
    list.append(li);
  });
  box.replaceChildren(title, list);
  box.hidden = false;
}
