// The report view's settings (business.md §5) as data: which columns a user may pick (the doctype's
// fields and its child tables' fields, `table.field`), the group-by choices ("Count", "Sum of
// <label>", "Average of <label>" for each numeric field), the totals row, the arguments of
// fw.desk.reportview.get, and the `json` a saved Report keeps. Pure: `node --test` covers it.
import { __ } from "../../i18n.js";

const NO_VALUE = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image", "Fold", "Heading",
	"Password", "Signature", "Geolocation", "Table", "Table MultiSelect"]);
export const NUMERIC = new Set(["Int", "Long Int", "Float", "Currency", "Percent", "Duration", "Rating"]);
export const AGGREGATE_KEY = "_aggregate_column";

/** [{key, label, df, table}] a user may pick: ID, the fields with a value, then each child table's
 * fields as `table.field` (label "<field> (<table>)"). `childMetas` maps a table's doctype to its meta. */
export function pickableColumns(meta, childMetas = {}) {
	const out = [{ key: "name", label: __("ID"), df: { fieldname: "name", fieldtype: "Data" } }];
	for (const df of meta.fields || []) {
		if (!df.fieldname || df.hidden) continue;
		if ((df.fieldtype === "Table" || df.fieldtype === "Table MultiSelect") && childMetas[df.options]) {
			for (const child of childMetas[df.options].fields || []) {
				if (!child.fieldname || child.hidden || NO_VALUE.has(child.fieldtype)) continue;
				out.push({ key: `${df.fieldname}.${child.fieldname}`, table: df.fieldname, df: child,
					label: `${__(child.label || child.fieldname)} (${__(df.label || df.fieldname)})` });
			}
		} else if (!NO_VALUE.has(df.fieldtype)) {
			out.push({ key: df.fieldname, label: __(df.label || df.fieldname), df });
		}
	}
	return out;
}

/** The default columns: ID, the title field and the `in_list_view` fields. */
export function defaultColumns(meta) {
	const keys = ["name"];
	if (meta.title_field) keys.push(meta.title_field);
	for (const df of meta.fields || []) if (df.in_list_view && !NO_VALUE.has(df.fieldtype)) keys.push(df.fieldname);
	return [...new Set(keys)];
}

/** Fields a view may be grouped by: those with a value, not in a child table, not long text. */
export function groupableFields(meta) {
	const long = new Set(["Text", "Small Text", "Long Text", "Text Editor", "Code", "HTML Editor", "Markdown Editor", "JSON"]);
	return (meta.fields || []).filter((df) => df.fieldname && !df.hidden && !NO_VALUE.has(df.fieldtype) && !long.has(df.fieldtype));
}

/** The aggregate choices: Count, then "Sum of <label>" and "Average of <label>" per numeric field. */
export function aggregateChoices(meta) {
	const out = [{ value: "count", label: __("Count"), func: "count", field: null }];
	for (const df of meta.fields || []) {
		if (!df.fieldname || df.hidden || !NUMERIC.has(df.fieldtype)) continue;
		const label = __(df.label || df.fieldname);
		out.push({ value: `sum:${df.fieldname}`, label: __("Sum of {0}", [label]), func: "sum", field: df.fieldname });
		out.push({ value: `avg:${df.fieldname}`, label: __("Average of {0}", [label]), func: "avg", field: df.fieldname });
	}
	return out;
}

/** The arguments of fw.desk.reportview.get for the view's state. */
export function requestArgs(doctype, state) {
	const args = { doctype, filters: state.filters || [], start: state.start || 0, page_length: state.pageLength || 100 };
	if (state.groupBy) {
		args.group_by = state.groupBy;
		const choice = String(state.aggregate || "count");
		const [func, field] = choice.includes(":") ? choice.split(":") : [choice, null];
		args.aggregate_function = func;
		if (field) args.aggregate_on_field = field;
	} else {
		args.fields = state.columns;
		if (state.sort) args.order_by = `${state.sort.fieldname} ${state.sort.order}`;
	}
	return args;
}

/** The totals row: for each numeric column (by `isNumeric(key)`), the sum of the rows' values (a
 * child-table column's list counts its numbers); other columns null. */
export function totals(keys, values, isNumeric) {
	return keys.map((key, index) => {
		if (!isNumeric(key)) return null;
		let sum = 0;
		for (const row of values) {
			const cell = row[index];
			for (const item of Array.isArray(cell) ? cell : [cell]) {
				const number = Number(item);
				if (item !== null && item !== undefined && item !== "" && Number.isFinite(number)) sum += number;
			}
		}
		return Math.round(sum * 1e9) / 1e9;
	});
}

/** What a saved Report keeps (its `json`), and the view's state from it. */
export function reportSettings(state) {
	return { fields: state.columns, filters: state.filters || [], order_by: state.sort ? `${state.sort.fieldname} ${state.sort.order}` : null,
		group_by: state.groupBy || null, aggregate: state.aggregate || "count" };
}

export function stateFromSettings(settings, meta) {
	const s = settings && typeof settings === "object" ? settings : {};
	const [fieldname, order] = String(s.order_by || "").split(" ");
	return {
		columns: Array.isArray(s.fields) && s.fields.length ? s.fields : defaultColumns(meta),
		filters: Array.isArray(s.filters) ? s.filters : [],
		sort: fieldname ? { fieldname, order: order === "asc" ? "asc" : "desc" } : null,
		groupBy: s.group_by || "",
		aggregate: s.aggregate || (s.aggregate_function && s.aggregate_on_field ? `${s.aggregate_function}:${s.aggregate_on_field}` : "count"),
	};
}
