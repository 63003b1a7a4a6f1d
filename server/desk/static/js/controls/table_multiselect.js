// Table MultiSelect: a child table whose rows each hold one Link value, shown as chips (each with a
// Remove button) and added through a Link search (the child's first Link field). Removing a value
// removes its row; adding one appends a row.
import { __ } from "../i18n.js";
import { html, useState } from "../lib/html.js";
import { cachedMeta } from "../meta.js";
import { storeDoc } from "../model.js";
import { newRow } from "./grid.js";
import { LinkControl } from "./link.js";
import { registerControl } from "./registry.js";

/** The Link field of a Table MultiSelect's child doctype. Pure. */
export function multiselectLink(childMeta) {
	return (childMeta.fields || []).find((df) => df.fieldtype === "Link") || null;
}

export function TableMultiSelectControl(props) {
	const { frm, df, value, readOnly, onChange } = props;
	const [round, setRound] = useState(0); // remounts the search after each choice, emptying it
	const childMeta = cachedMeta(df.options);
	const link = childMeta && multiselectLink(childMeta);
	const rows = Array.isArray(value) ? value : [];
	if (!link) return html`<p class="control-error">${__("Cannot show {0}", [df.label || df.fieldname])}</p>`;
	const chosen = rows.map((row) => row[link.fieldname]).filter(Boolean);

	function add(next) {
		setRound(round + 1);
		if (!next || chosen.includes(next)) return;
		const parent = (frm && frm.doc) || {};
		const row = storeDoc(newRow(childMeta, parent, df.fieldname, rows, { user: parent.owner }));
		row[link.fieldname] = next;
		onChange([...rows, row]);
	}

	function remove(index) {
		const next = rows.filter((_, i) => i !== index);
		next.forEach((row, i) => {
			row.idx = i + 1;
		});
		onChange(next);
	}

	const searchDf = { ...df, fieldtype: "Link", options: link.options };
	return html`<div class="control-multiselect">
		<${LinkControl} key=${round} ...${props} df=${searchDf} value=${""}
			onInput=${() => {}} onChange=${add} />
		<ul class="multiselect-chips" aria-label=${__("Selected: {0}", [df.label || df.fieldname])}>
			${rows.map((row, index) =>
				row[link.fieldname]
					? html`<li key=${row.name} class="multiselect-chip">
							<span>${row[link.fieldname]}</span>
							${readOnly
								? null
								: html`<button type="button" class="btn-icon" onClick=${() => remove(index)}>
										×<span class="sr-only"> ${__("Remove {0}", [row[link.fieldname]])}</span></button>`}
						</li>`
					: null,
			)}
		</ul>
	</div>`;
}

registerControl("Table MultiSelect", TableMultiSelectControl);
