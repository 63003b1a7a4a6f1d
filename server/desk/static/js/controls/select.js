// Select: a <select> of the field's options (values as stored, labels translated); an empty choice
// first unless the field is mandatory and has no empty option.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

export function selectChoices(df) {
	const options = String(df.options || "").split("\n");
	const values = options.filter((o) => o.trim() !== "");
	const blank = options.some((o) => o.trim() === "") || !df.reqd;
	return blank ? ["", ...values] : values;
}

export function SelectControl(props) {
	const { df, value, onChange, readOnly } = props;
	const attrs = inputProps(props);
	delete attrs.readOnly;
	const current = value === null || value === undefined ? "" : String(value);
	const choices = selectChoices(df);
	if (current && !choices.includes(current)) choices.push(current);
	return html`<${ControlFrame} ...${props}>
		<select class="form-input" ...${attrs} disabled=${Boolean(readOnly)} value=${current}
			onChange=${(e) => onChange(e.currentTarget.value)}>
			${choices.map((choice) => html`<option value=${choice}>${choice ? __(choice) : ""}</option>`)}
		</select>
	</${ControlFrame}>`;
}

registerControl("Select", SelectControl);
