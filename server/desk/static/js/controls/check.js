// Check: a checkbox, its label after it; the value is 1 or 0.
import { html } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

export function CheckControl(props) {
	const { value, onChange, readOnly } = props;
	const attrs = inputProps(props);
	delete attrs.readOnly; // a checkbox cannot be read-only: it is disabled instead
	return html`<${ControlFrame} ...${props} inline=${true}>
		<input class="form-check" type="checkbox" ...${attrs} disabled=${Boolean(readOnly)} checked=${Boolean(Number(value))}
			onChange=${(e) => onChange(e.currentTarget.checked ? 1 : 0)} />
	</${ControlFrame}>`;
}

registerControl("Check", CheckControl);
