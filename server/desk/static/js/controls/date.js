// Date, Datetime and Time: the browser's date and time inputs. Values are stored as the server
// writes them ("2024-03-07", "2024-03-07 14:05:09", "14:05:09").
import { html } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

/** A stored value as the input's value. */
export function toInput(fieldtype, value) {
	if (value === null || value === undefined || value === "") return "";
	const text = String(value);
	if (fieldtype === "Date") return text.slice(0, 10);
	if (fieldtype === "Datetime") return text.slice(0, 19).replace(" ", "T");
	return text.slice(0, 8);
}

/** An input's value as stored (null when empty). */
export function fromInput(fieldtype, text) {
	if (!text) return null;
	if (fieldtype === "Datetime") {
		const value = text.replace("T", " ");
		return value.length === 16 ? `${value}:00` : value;
	}
	if (fieldtype === "Time" && text.length === 5) return `${text}:00`;
	return text;
}

const TYPES = { Date: "date", Datetime: "datetime-local", Time: "time" };

export function DateControl(props) {
	const { df, value, onInput, onChange } = props;
	return html`<${ControlFrame} ...${props}>
		<input class="form-input" type=${TYPES[df.fieldtype]} step=${df.fieldtype === "Date" ? undefined : "1"} ...${inputProps(props)}
			value=${toInput(df.fieldtype, value)}
			onInput=${(e) => onInput(fromInput(df.fieldtype, e.currentTarget.value))}
			onChange=${(e) => onChange(fromInput(df.fieldtype, e.currentTarget.value))} />
	</${ControlFrame}>`;
}

registerControl(["Date", "Datetime", "Time"], DateControl);
