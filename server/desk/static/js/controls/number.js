// Int, Float, Currency, Percent: a number input. The typed text is kept while it is being edited;
// the value is a number (or null when empty).
import { html, useEffect, useState } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

export function parseNumber(text, integer) {
	const trimmed = String(text ?? "").trim();
	if (trimmed === "") return null;
	const number = integer ? Number.parseInt(trimmed, 10) : Number.parseFloat(trimmed);
	return Number.isFinite(number) ? number : null;
}

export function NumberControl(props) {
	const { df, value, onInput, onChange } = props;
	const integer = df.fieldtype === "Int" || df.fieldtype === "Long Int";
	const shown = value === null || value === undefined ? "" : String(value);
	const [text, setText] = useState(shown);
	useEffect(() => {
		if (parseNumber(text, integer) !== (value ?? null)) setText(shown);
	}, [shown]);
	return html`<${ControlFrame} ...${props}>
		<input class="form-input" type="number" inputMode=${integer ? "numeric" : "decimal"} step=${integer ? "1" : "any"}
			min=${df.non_negative ? "0" : undefined} ...${inputProps(props)} value=${text}
			onInput=${(e) => {
				setText(e.currentTarget.value);
				onInput(parseNumber(e.currentTarget.value, integer));
			}}
			onChange=${(e) => onChange(parseNumber(e.currentTarget.value, integer))} />
	</${ControlFrame}>`;
}

registerControl(["Int", "Long Int", "Float", "Currency", "Percent"], NumberControl);
