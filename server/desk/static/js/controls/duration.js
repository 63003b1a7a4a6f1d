// Duration: seconds, shown and typed as "1d 2h 30m 15s" (Frappe stores a Duration as seconds; the
// field's `hide_days` and `hide_seconds` leave those units out). A text input: what the user types
// is kept while it is being edited, and an entry that is not a duration is marked at the field.
import { __ } from "../i18n.js";
import { html, useEffect, useState } from "../lib/html.js";
import { ControlFrame, inputProps } from "./base.js";
import { registerControl } from "./registry.js";

const UNITS = [
	["d", 86400],
	["h", 3600],
	["m", 60],
	["s", 1],
];

/** Seconds as "1d 2h 30m" (units the field hides are carried into the next one). Pure. */
export function formatDuration(seconds, { hideDays = false, hideSeconds = false } = {}) {
	if (seconds === null || seconds === undefined || seconds === "") return "";
	let left = Math.max(0, Math.round(Number(seconds) || 0));
	const parts = [];
	for (const [unit, size] of UNITS) {
		if ((unit === "d" && hideDays) || (unit === "s" && hideSeconds)) continue;
		const count = Math.floor(left / size);
		left -= count * size;
		if (count) parts.push(`${count}${unit}`);
	}
	return parts.length ? parts.join(" ") : hideSeconds ? "0m" : "0s";
}

/** "1d 2h 30m 15s", "90m", "1.5h", "1:30" (hours:minutes) or a number of seconds → seconds;
 * "" → null; anything else → NaN. Pure. */
export function parseDuration(text) {
	const value = String(text ?? "").trim().toLowerCase();
	if (!value) return null;
	if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value));
	const clock = /^(\d+):([0-5]\d)(?::([0-5]\d))?$/.exec(value);
	if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3] || 0);
	const part = /(\d+(?:\.\d+)?)\s*([dhms])/g;
	let total = 0;
	let consumed = "";
	let match;
	while ((match = part.exec(value))) {
		total += Number(match[1]) * Object.fromEntries(UNITS)[match[2]];
		consumed += match[0];
	}
	return consumed.replace(/\s/g, "") === value.replace(/\s/g, "") && consumed ? Math.round(total) : Number.NaN;
}

export function DurationControl(props) {
	const { df, value, onInput, onChange, error } = props;
	const options = { hideDays: Boolean(df.hide_days), hideSeconds: Boolean(df.hide_seconds) };
	const shown = formatDuration(value, options);
	const [text, setText] = useState(shown);
	const [invalid, setInvalid] = useState(false);
	useEffect(() => {
		if (parseDuration(text) !== (value ?? null)) setText(shown);
	}, [shown]);
	const message = invalid ? __("Enter a duration such as 1h 30m") : error;
	const take = (next, commit) => {
		setText(next);
		const seconds = parseDuration(next);
		setInvalid(Number.isNaN(seconds));
		if (Number.isNaN(seconds)) return;
		if (commit) {
			setText(formatDuration(seconds, options));
			onChange(seconds);
		} else {
			onInput(seconds);
		}
	};
	return html`<${ControlFrame} ...${props} error=${message}>
		<input class="form-input" type="text" inputMode="text" autocomplete="off" placeholder=${__("e.g. 1h 30m")}
			...${inputProps({ ...props, error: message })} value=${text}
			onInput=${(e) => take(e.currentTarget.value, false)} onChange=${(e) => take(e.currentTarget.value, true)} />
	</${ControlFrame}>`;
}

registerControl("Duration", DurationControl);
