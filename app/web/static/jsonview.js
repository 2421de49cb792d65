// The descriptor as JSON, editable: the form writes here after each edit, and JSON typed or pasted
// here fills the form. While the text is being edited it is never rewritten under the cursor.
import { parseJSON, pretty } from "./json.js";

export class JsonView {
  constructor(textarea, message, onChange, onStale = () => {}) {
    this.textarea = textarea;
    this.message = message;
    this.onChange = onChange;
    this.onStale = onStale; // why the text is not a descriptor, while it is not
    this.editing = false; // the text is the person's: not rewritten until they leave it
    this.pending = 0; // a read waiting for typing to pause
    textarea.addEventListener("input", () => {
      this.editing = true;
      clearTimeout(this.pending);
      this.pending = setTimeout(() => this.read(), 120);
    });
    textarea.addEventListener("blur", () => {
      // Only unread text is read on leaving: reading again would rebuild the form under the click.
      if (this.pending) this.read();
      this.editing = false;
    });
  }

  show(descriptor) {
    if (this.editing) return;
    this.textarea.value = pretty(descriptor, "", 64);
    this.textarea.rows = Math.min(30, Math.max(6, this.textarea.value.split("\n").length + 1));
    this.complain(null); // the text is the descriptor on screen again
    this.onStale(null);
  }

  read() {
    clearTimeout(this.pending);
    this.pending = 0;
    let value;
    try {
      value = parseJSON(this.textarea.value);
    } catch (error) {
      this.complain(`This is not JSON yet: ${error.message}`);
      this.onStale("it is not JSON");
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.complain("A descriptor is a JSON object: {\"kind\": ..., \"attrs\": {...}, \"inputs\": [...]}");
      this.onStale(Array.isArray(value) ? "it is a list; paste one descriptor at a time" : "it is not a JSON object");
      return;
    }
    this.complain(null);
    this.onChange(value);
  }

  complain(text) {
    this.message.hidden = !text;
    this.message.textContent = text ?? "";
    if (text) this.textarea.setAttribute("aria-invalid", "true");
    else this.textarea.removeAttribute("aria-invalid");
    this.textarea.closest(".field")?.classList.toggle("field--error", Boolean(text));
  }
}
