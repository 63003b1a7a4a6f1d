// The list's column chooser: "Columns" opens a group of checkboxes, one per field a list can show
// (columns.js), the shown ones checked; at most MAX_COLUMNS at a time; "Reset columns" goes back to
// the doctype's `in_list_view` fields. The choice is remembered with the user's list settings.
import { __ } from "../../i18n.js";
import { html, useRef, useState } from "../../lib/html.js";
import { MAX_COLUMNS, choosableColumns, listColumns } from "./columns.js";

export function ColumnPicker({ meta, chosen, onChange }) {
	const [open, setOpen] = useState(false);
	const toggleButton = useRef(null);
	const current = listColumns(meta, chosen).map((df) => df.fieldname);
	const full = current.length >= MAX_COLUMNS;

	function toggle(fieldname) {
		const next = current.includes(fieldname) ? current.filter((f) => f !== fieldname) : [...current, fieldname];
		onChange(next.length ? next : null);
	}

	function close() {
		setOpen(false);
		if (toggleButton.current) toggleButton.current.focus();
	}

	return html`<div class="column-picker">
		<button type="button" ref=${toggleButton} class="btn btn-default btn-sm" aria-expanded=${open ? "true" : "false"}
			aria-controls="list-columns" onClick=${() => (open ? close() : setOpen(true))}>${__("Columns")}</button>
		${open
			? html`<fieldset id="list-columns" class="column-picker-panel"
					onKeyDown=${(e) => e.key === "Escape" && (e.preventDefault(), e.stopPropagation(), close())}>
					<legend>${__("Columns shown (at most {0})", [MAX_COLUMNS])}</legend>
					${choosableColumns(meta).map((df) => {
						const shown = current.includes(df.fieldname);
						return html`<label class="column-choice" key=${df.fieldname}>
							<input type="checkbox" checked=${shown} disabled=${!shown && full} onChange=${() => toggle(df.fieldname)} />
							${__(df.label || df.fieldname)}
						</label>`;
					})}
					<button type="button" class="btn btn-link btn-sm" onClick=${() => onChange(null)}>${__("Reset columns")}</button>
				</fieldset>`
			: null}
	</div>`;
}
