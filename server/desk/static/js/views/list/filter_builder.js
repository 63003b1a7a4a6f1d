// The filter builder (desk.md §3): "Add filter" opens a row of field, operator and value; the value's
// input suits the field (a choice for Select and Check, a number, a date; two for `between`, none for
// `is set`; a Link's input suggests its documents through `search_link`); "Apply filter" adds the
// condition to the list's filters (operators.js makes it).
import { searchLink } from "../../api.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useRef, useState } from "../../lib/html.js";
import { selectOptions } from "../../model.js";
import { OPERATORS, filterableFields, makeFilter, rangeInputType, valueKind } from "./operators.js";

const SUGGEST_MS = 200;

/** A Link's suggestions for `text` (a <datalist>): the documents `search_link` finds. */
function useSuggestions(df, text) {
	const [rows, setRows] = useState([]);
	useEffect(() => {
		if (df.fieldtype !== "Link" || !df.options || text === null) {
			setRows([]);
			return undefined;
		}
		const controller = new AbortController();
		const timer = setTimeout(() => {
			searchLink(df.options, text || "", { signal: controller.signal })
				.then((found) => !controller.signal.aborted && setRows(found))
				.catch(() => setRows([]));
		}, SUGGEST_MS);
		return () => {
			clearTimeout(timer);
			controller.abort();
		};
	}, [df.fieldname, text]);
	return df.fieldtype === "Link" ? rows : [];
}

function ValueInput({ df, op, values, setValues }) {
	const kind = valueKind(df, op);
	const suggestions = useSuggestions(df, kind === "text" ? values[0] : null);
	const set = (index) => (event) => {
		const next = [...values];
		next[index] = event.currentTarget.value;
		setValues(next);
	};
	if (kind === "none") return null;
	if (kind === "two") {
		const type = rangeInputType(df);
		return html`<span class="filter-range">
			<label class="sr-only" for="new-filter-from">${__("From")}</label>
			<input id="new-filter-from" type=${type} step="any" placeholder=${__("From")} value=${values[0] || ""} onInput=${set(0)} />
			<label class="sr-only" for="new-filter-to">${__("To")}</label>
			<input id="new-filter-to" type=${type} step="any" placeholder=${__("To")} value=${values[1] || ""} onInput=${set(1)} />
		</span>`;
	}
	if (kind === "choice") {
		const options = df.fieldtype === "Check" ? [["1", __("Yes")], ["0", __("No")]] : selectOptions(df).map((o) => [o, __(o)]);
		return html`<span>
			<label class="sr-only" for="new-filter-value">${__("Value")}</label>
			<select id="new-filter-value" value=${values[0] || ""} onChange=${set(0)}>
				<option value="">${__("Choose…")}</option>
				${options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}
			</select>
		</span>`;
	}
	const placeholder = kind === "list" ? __("Values, separated by commas") : __("Value");
	return html`<span>
		<label class="sr-only" for="new-filter-value">${__("Value")}</label>
		<input id="new-filter-value" type=${kind === "list" ? "text" : kind} step="any" placeholder=${placeholder}
			value=${values[0] || ""} onInput=${set(0)} list=${suggestions.length ? "new-filter-suggestions" : undefined} />
		${suggestions.length
			? html`<datalist id="new-filter-suggestions">
					${suggestions.map((row) => html`<option value=${row.value}>${row.label || ""}</option>`)}
				</datalist>`
			: null}
	</span>`;
}

export function FilterBuilder({ meta, filters, onChange }) {
	const fields = filterableFields(meta);
	const [open, setOpen] = useState(false);
	const [fieldname, setFieldname] = useState(fields[0].fieldname);
	const [op, setOp] = useState("=");
	const [values, setValues] = useState([]);
	const toggle = useRef(null);
	const first = useRef(null);
	useEffect(() => {
		if (open && first.current) first.current.focus();
	}, [open]);
	const df = fields.find((f) => f.fieldname === fieldname) || fields[0];
	const filter = makeFilter(df, op, values);

	function close() {
		setOpen(false);
		setValues([]);
		if (toggle.current) toggle.current.focus();
	}

	function apply(event) {
		event.preventDefault();
		if (!filter) return;
		onChange([...filters, filter]);
		close();
	}

	return html`<div class="filter-builder">
		<button type="button" ref=${toggle} class="btn btn-default btn-sm" aria-expanded=${open ? "true" : "false"}
			aria-controls="new-filter" onClick=${() => (open ? close() : setOpen(true))}>${__("Add filter")}</button>
		${open
			? html`<form id="new-filter" class="filter-row" role="group" aria-label=${__("New filter")} onSubmit=${apply}
					onKeyDown=${(e) => e.key === "Escape" && (e.preventDefault(), e.stopPropagation(), close())}>
					<label class="sr-only" for="new-filter-field">${__("Field")}</label>
					<select id="new-filter-field" ref=${first} value=${fieldname}
						onChange=${(e) => (setFieldname(e.currentTarget.value), setValues([]))}>
						${fields.map((f) => html`<option value=${f.fieldname}>${__(f.label || f.fieldname)}</option>`)}
					</select>
					<label class="sr-only" for="new-filter-op">${__("Operator")}</label>
					<select id="new-filter-op" value=${op} onChange=${(e) => (setOp(e.currentTarget.value), setValues([]))}>
						${OPERATORS.map((o) => html`<option value=${o.op}>${__(o.label)}</option>`)}
					</select>
					<${ValueInput} df=${df} op=${op} values=${values} setValues=${setValues} />
					<button type="submit" class="btn btn-primary btn-sm" disabled=${!filter}>${__("Apply filter")}</button>
					<button type="button" class="btn btn-link btn-sm" onClick=${close}>${__("Cancel")}</button>
				</form>`
			: null}
	</div>`;
}
