// Table: an editable grid of a child table (desk.md §4). Columns are the child's `in_list_view`
// fields (else its first value fields); each cell is the field's own control, labelled by its field
// label for assistive technology (the column header shows it). `Add Row`, and per row: delete and
// move up/down. The child doctype's scripts hear `<table>_add`, `<table>_remove` and their fields'
// change events (`frappe.ui.form.on(child, {field(frm, cdt, cdn)})`) through the `frm`'s grid API
// (`add_row`, `remove_row`, `set_child_value`, `get_child_docfield` for what scripts changed of a
// column). Rows live in `locals` as Frappe scripts expect (`locals[cdt][cdn]`). Pure helpers
// (columns, new rows, moves) are tested under `node --test`.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { cachedMeta } from "../meta.js";
import { defaultValue, hasValue, rowName, storeDoc, NO_VALUE_TYPES } from "../model.js";
import { rowFieldState } from "../views/form/field_rules.js";
import { labelOf } from "./base.js";
import { controlFor, registerControl } from "./registry.js";

const MAX_COLUMNS = 6;

/** The grid's columns: the child's `in_list_view` fields, else its first value fields. Pure. */
export function gridColumns(childMeta) {
	const fields = (childMeta.fields || []).filter((df) => df.fieldname && hasValue(df) && !df.hidden);
	const listed = fields.filter((df) => df.in_list_view);
	return (listed.length ? listed : fields).slice(0, MAX_COLUMNS);
}

/** A new row of `childMeta` for table `parentfield` of `parent` (defaults filled, idx last). Pure
 * apart from its random name (the server keeps a row's name, so it is as random as the server's). */
export function newRow(childMeta, parent, parentfield, rows, { user } = {}) {
	const row = {
		doctype: childMeta.name,
		name: rowName(),
		__islocal: 1,
		idx: rows.length + 1,
		parent: parent.name,
		parentfield,
		parenttype: parent.doctype,
		docstatus: 0,
	};
	for (const df of childMeta.fields || []) {
		if (!df.fieldname || NO_VALUE_TYPES.has(df.fieldtype)) continue;
		const value = defaultValue(df, { user });
		if (value !== null && value !== undefined) row[df.fieldname] = value;
	}
	return row;
}

/** `rows` with the row at `index` moved by `step` (-1 up, +1 down), idx renumbered. Pure. */
export function moveRow(rows, index, step) {
	const target = index + step;
	if (target < 0 || target >= rows.length) return rows;
	const next = [...rows];
	[next[index], next[target]] = [next[target], next[index]];
	next.forEach((row, i) => {
		row.idx = i + 1;
	});
	return next;
}

/** `rows` without the row at `index`, idx renumbered. Pure. */
export function removeRow(rows, index) {
	const next = rows.filter((_, i) => i !== index);
	next.forEach((row, i) => {
		row.idx = i + 1;
	});
	return next;
}

function fire(frm, event, cdt, cdn) {
	if (!frm || typeof frm.trigger !== "function") return;
	Promise.resolve(frm.trigger(event, cdt, cdn)).catch((error) => console.error(`${cdt} ${event} failed`, error));
}

function Cell({ frm, df: baseDf, row, table, childMeta, tableReadOnly, commit }) {
	const df = (frm && frm.get_child_docfield && frm.get_child_docfield(table.fieldname, baseDf.fieldname)) || baseDf;
	const state = rowFieldState(frm, childMeta, df, row, tableReadOnly);
	if (!state.visible) return html`<td></td>`;
	const Control = controlFor(df.fieldtype);
	const cellDf = { ...df, description: "", reqd: state.reqd ? 1 : 0 };
	const errorKey = `${table.fieldname}.${row.idx}.${df.fieldname}`;
	return html`<td data-fieldname=${df.fieldname}>
		<${Control}
			frm=${frm}
			df=${cellDf}
			doc=${row}
			id=${`field-${table.fieldname}-${row.name}-${df.fieldname}`}
			value=${row[df.fieldname]}
			readOnly=${state.readOnly}
			error=${frm && frm.errors ? frm.errors[errorKey] || null : null}
			hideLabel=${true}
			table=${table.fieldname}
			cdt=${row.doctype}
			cdn=${row.name}
			onInput=${(value) => commit(row, df, value, false)}
			onChange=${(value) => commit(row, df, value, true)}
		/>
	</td>`;
}

export function GridControl(props) {
	const { frm, df, value, readOnly, id, error } = props;
	const childMeta = cachedMeta(df.options);
	const rows = Array.isArray(value) ? value : [];
	const label = labelOf(df);
	if (!childMeta) return html`<p class="control-error">${__("Cannot show {0}", [label])}</p>`;
	const columns = gridColumns(childMeta);
	const parent = (frm && frm.doc) || {};
	const setRows = (next) => props.onInput(next);
	const commit = (row, cdf, next, committed) => {
		if (frm && frm.errors) delete frm.errors[`${df.fieldname}.${row.idx}.${cdf.fieldname}`];
		if (committed && frm && typeof frm.set_child_value === "function" && row[cdf.fieldname] !== next) {
			frm.set_child_value(row, cdf.fieldname, next).catch((error) => console.error(error));
			return;
		}
		if (row[cdf.fieldname] !== next) {
			row[cdf.fieldname] = next;
			setRows([...rows]);
		}
		// typed before: the value is in the row already, its event fires now
		if (committed) fire(frm, cdf.fieldname, row.doctype, row.name);
	};
	const focusLast = () =>
		requestAnimationFrame(() => {
			const first = document.querySelector(`#${CSS.escape(id)} tbody tr:last-child :is(input, select, textarea)`);
			if (first) first.focus();
		});
	const add = async () => {
		if (frm && typeof frm.add_row === "function") {
			await frm.add_row(df.fieldname);
		} else {
			const row = storeDoc(newRow(childMeta, parent, df.fieldname, rows, { user: parent.owner }));
			setRows([...rows, row]);
			fire(frm, `${df.fieldname}_add`, row.doctype, row.name);
		}
		focusLast();
	};
	const remove = (index) => {
		const row = rows[index];
		if (frm && typeof frm.remove_row === "function") {
			frm.remove_row(df.fieldname, row).catch((error) => console.error(error));
			return;
		}
		setRows(removeRow(rows, index));
		fire(frm, `${df.fieldname}_remove`, row.doctype, row.name);
	};
	const move = (index, step) => setRows(moveRow(rows, index, step));
	return html`<div class=${`control control-grid ${error ? "has-error" : ""}`} data-fieldname=${df.fieldname} data-fieldtype="Table">
		<p class="control-label" id=${`${id}-label`}>${label}${df.reqd ? html`<span class="reqd-mark" aria-hidden="true"> *</span>` : null}</p>
		<div class="grid-scroll">
			<table class="grid" id=${id} aria-labelledby=${`${id}-label`}>
				<thead>
					<tr>
						<th scope="col" class="grid-idx">${__("No.")}</th>
						${columns.map((cdf) => html`<th scope="col">${labelOf(cdf)}${cdf.reqd ? html`<span class="reqd-mark" aria-hidden="true"> *</span>` : null}</th>`)}
						${readOnly ? null : html`<th scope="col"><span class="sr-only">${__("Row actions")}</span></th>`}
					</tr>
				</thead>
				<tbody>
					${rows.length
						? rows.map(
								(row, index) => html`<tr key=${row.name} aria-label=${__("Row {0}", [index + 1])}>
									<td class="grid-idx">${index + 1}</td>
									${columns.map((cdf) => html`<${Cell} frm=${frm} df=${cdf} row=${row} table=${df} childMeta=${childMeta}
										tableReadOnly=${readOnly} commit=${commit} />`)}
									${readOnly
										? null
										: html`<td class="grid-row-actions">
												<button type="button" class="btn-icon" disabled=${index === 0} onClick=${() => move(index, -1)}>
													↑<span class="sr-only"> ${__("Move row {0} up", [index + 1])}</span></button>
												<button type="button" class="btn-icon" disabled=${index === rows.length - 1} onClick=${() => move(index, 1)}>
													↓<span class="sr-only"> ${__("Move row {0} down", [index + 1])}</span></button>
												<button type="button" class="btn-icon" onClick=${() => remove(index)}>
													×<span class="sr-only"> ${__("Delete row {0}", [index + 1])}</span></button>
											</td>`}
								</tr>`,
							)
						: html`<tr><td class="grid-empty" colspan=${columns.length + 2}>${__("No rows")}</td></tr>`}
				</tbody>
			</table>
		</div>
		${readOnly
			? null
			: html`<button type="button" class="btn btn-default btn-small" onClick=${() => add().catch((error) => console.error(error))}>${__("Add Row")}</button>`}
		${df.description ? html`<p class="control-description">${__(df.description)}</p>` : null}
		${error ? html`<p class="control-error">${error}</p>` : null}
	</div>`;
}

registerControl("Table", GridControl);
