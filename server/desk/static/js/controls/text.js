// Small Text, Text, Long Text, and Code, JSON and Markdown as plain text: a <textarea>.
import { html } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

export function TextControl(props) {
	const { df, value, onInput, onChange } = props;
	const rows = df.fieldtype === "Small Text" ? 3 : df.fieldtype === "Long Text" ? 10 : 5;
	const text = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value, null, 1) : String(value);
	return html`<${ControlFrame} ...${props}>
		<textarea class="form-input" rows=${rows} ...${inputProps(props)} value=${text}
			onInput=${(e) => onInput(e.currentTarget.value)} onChange=${(e) => onChange(e.currentTarget.value)}></textarea>
	</${ControlFrame}>`;
}

registerControl(["Small Text", "Text", "Long Text", "Code", "JSON", "Markdown Editor"], TextControl);
