// Int, Float, Currency, Percent: a number input. The typed text is kept while it is being edited;
// the value is a number (or null when empty), rounded to the field's precision (its own, else the
// system's float or currency precision) once committed, as Frappe's `flt(value, precision)`.
import { precisionOf } from "../format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

export function parseNumber(text, integer) {
	const trimmed = String(text ?? "").trim();
	if (trimmed === "") return null;
	const number = integer ? Number.parseInt(trimmed, 10) : Number.parseFloat(trimmed);
	return Number.isFinite(number) ? number : null;
}

/** A committed number rounded to `precision` decimals (null stays null). Pure. */
export function roundTo(value, precision) {
	if (value === null || precision === null || precision === undefined || !Number.isFinite(Number(precision))) return value;
	const factor = 10 ** Number(precision);
	return Math.round((value + Number.EPSILON * Math.sign(value)) * factor) / factor;
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
			onChange=${(e) => {
				const rounded = integer ? parseNumber(e.currentTarget.value, true) : roundTo(parseNumber(e.currentTarget.value, false), precisionOf(df));
				if (rounded !== null && String(rounded) !== e.currentTarget.value) setText(String(rounded));
				onChange(rounded);
			}} />
	</${ControlFrame}>`;
}

registerControl(["Int", "Long Int", "Float", "Currency", "Percent"], NumberControl);
