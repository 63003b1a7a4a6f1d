// Data (with the Email, Phone and URL options), Phone, Password (write-only) and the one-line text
// types: an <input>.
import { html } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

const INPUT_TYPES = { Email: "email", Phone: "tel", URL: "url" };

function inputType(df) {
	if (df.fieldtype === "Password") return "password";
	if (df.fieldtype === "Phone") return "tel";
	return INPUT_TYPES[df.options] || "text";
}

export function DataControl(props) {
	const { df, value, onInput, onChange, maxLength } = props;
	const length = maxLength || (df.length ? Number(df.length) : undefined);
	return html`<${ControlFrame} ...${props}>
		<input class="form-input" type=${inputType(df)} ...${inputProps(props)} maxLength=${length}
			autocomplete=${df.fieldtype === "Password" ? "new-password" : "off"}
			value=${value === null || value === undefined ? "" : String(value)}
			onInput=${(e) => onInput(e.currentTarget.value)} onChange=${(e) => onChange(e.currentTarget.value)} />
	</${ControlFrame}>`;
}

registerControl(["Data", "Phone", "Password", "Autocomplete", "Color", "Barcode", "Icon"], DataControl);
