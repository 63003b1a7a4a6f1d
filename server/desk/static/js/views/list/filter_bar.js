// The list's filters: an input for each `in_standard_filter` field (Select and Check as a choice,
// Link as an exact value, text as "contains"), the filter builder of desk.md §3 (any field and
// operator: filter_builder.js), the active filters as removable chips, and "Clear filters".
import { formatValue } from "../../format.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";
import { selectOptions } from "../../model.js";
import { standardFilterFields } from "./columns.js";
import { FilterBuilder } from "./filter_builder.js";

const CHOICE_TYPES = new Set(["Select", "Check"]);
const EXACT_TYPES = new Set(["Link", "Dynamic Link", "Date", "Int", "Float", "Currency", "Percent"]);

/** The operator a standard filter input uses for its field type. */
export function standardOperator(df) {
	return CHOICE_TYPES.has(df.fieldtype) || EXACT_TYPES.has(df.fieldtype) ? "=" : "like";
}

/** The filters with the standard filter of `df` set to `value` (removed when empty). */
export function withStandardFilter(filters, df, value) {
	const rest = filters.filter((f) => f[0] !== df.fieldname);
	if (value === "" || value === null || value === undefined) return rest;
	const op = standardOperator(df);
	return [...rest, [df.fieldname, op, op === "like" ? `%${value}%` : value]];
}

function inputValue(filters, df) {
	const found = filters.find((f) => f[0] === df.fieldname && (f[1] === "=" || f[1] === "like"));
	if (!found) return "";
	const value = found[1] === "like" ? String(found[2]).replace(/^%|%$/g, "") : found[2];
	return value === null || value === undefined ? "" : String(value);
}

function StandardFilter({ df, filters, onChange }) {
	const id = `filter-${df.fieldname}`;
	const current = inputValue(filters, df);
	const [text, setText] = useState(current);
	useEffect(() => setText(current), [current]);
	const label = __(df.label || df.fieldname);
	if (CHOICE_TYPES.has(df.fieldtype)) {
		const options = df.fieldtype === "Check" ? [["1", __("Yes")], ["0", __("No")]] : selectOptions(df).map((o) => [o, __(o)]);
		return html`<div class="standard-filter">
			<label for=${id}>${label}</label>
			<select id=${id} value=${current} onChange=${(e) => onChange(withStandardFilter(filters, df, e.currentTarget.value))}>
				<option value="">${__("All")}</option>
				${options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
			</select>
		</div>`;
	}
	const commit = () => {
		if (text !== current) onChange(withStandardFilter(filters, df, text.trim()));
	};
	return html`<div class="standard-filter">
		<label for=${id}>${label}</label>
		<input id=${id} type=${df.fieldtype === "Date" ? "date" : "text"} value=${text}
			onInput=${(e) => setText(e.currentTarget.value)} onChange=${commit}
			onKeyDown=${(e) => e.key === "Enter" && commit()} />
	</div>`;
}

/** A filter value as the list shows values: translated options and workflow states, dates and
 * numbers in the system's format. */
function shownValue(meta, df, value) {
	if (value === null || value === undefined) return "";
	const workflow = meta.__workflow && meta.__workflow.field;
	if (df && (df.fieldtype === "Select" || df.fieldname === workflow)) return __(String(value));
	return df ? formatValue(value, df) : String(value);
}

const STANDARD_LABELS = { name: "ID", owner: "Created By", creation: "Created On", modified: "Last Updated On" };

export function describe(meta, [field, op, value]) {
	const df = (meta.fields || []).find((f) => f.fieldname === field);
	const label = df ? __(df.label || field) : STANDARD_LABELS[field] ? __(STANDARD_LABELS[field]) : field;
	if (op === "is") return `${label} ${value === "set" ? __("is set") : __("is not set")}`;
	if (op === "between" && Array.isArray(value)) {
		return `${label} ${__("between")} ${value.map((v) => shownValue(meta, df, v)).join(` ${__("and")} `)}`;
	}
	const shown = Array.isArray(value)
		? value.map((v) => shownValue(meta, df, v)).join(", ")
		: op === "like"
			? String(value).replace(/^%|%$/g, "")
			: shownValue(meta, df, value);
	return `${label} ${__(op)} ${shown}`.trim();
}

export function FilterBar({ meta, filters, onChange }) {
	const fields = standardFilterFields(meta);
	return html`<div class="filter-bar">
		${fields.length
			? html`<div class="standard-filters" role="group" aria-label=${__("Filters")}>
					${fields.map((df) => html`<${StandardFilter} key=${df.fieldname} df=${df} filters=${filters} onChange=${onChange} />`)}
				</div>`
			: null}
		<${FilterBuilder} meta=${meta} filters=${filters} onChange=${onChange} />
		${filters.length
			? html`<div class="active-filters">
					<ul class="filter-chips" aria-label=${__("Active filters")}>
						${filters.map(
							(filter, index) => html`<li class="filter-chip" key=${`${filter[0]}-${index}`}>
								<span>${describe(meta, filter)}</span>
								<button type="button" class="btn-icon" aria-label=${__("Remove filter {0}", [describe(meta, filter)])}
									onClick=${() => onChange(filters.filter((_f, i) => i !== index))}>×</button>
							</li>`,
						)}
					</ul>
					<button type="button" class="btn btn-link btn-sm" onClick=${() => onChange([])}>${__("Clear filters")}</button>
				</div>`
			: null}
	</div>`;
}
