// The filter builder's operators (desk.md §3) and how a condition is made from what the user typed:
// `is set` / `is not set` are Frappe's ["field", "is", "set" | "not set"], `between` takes two values,
// `in` a comma-separated list, `like` a text (matched anywhere unless it has a `%` of its own).
// Pure: `node --test` covers it.

export const OPERATORS = [
	{ op: "=", label: "=" },
	{ op: "!=", label: "!=" },
	{ op: "like", label: "like" },
	{ op: "in", label: "in" },
	{ op: "<", label: "<" },
	{ op: ">", label: ">" },
	{ op: "<=", label: "<=" },
	{ op: ">=", label: ">=" },
	{ op: "between", label: "between" },
	{ op: "is set", label: "is set" },
	{ op: "is not set", label: "is not set" },
];

const NOT_FILTERABLE = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image", "Fold", "Heading",
	"Table", "Table MultiSelect", "Password", "Signature", "Geolocation", "Attach Image"]);
const NUMBER_TYPES = new Set(["Int", "Float", "Currency", "Percent", "Duration", "Rating"]);
const DATE_TYPES = new Set(["Date"]);
const DATETIME_TYPES = new Set(["Datetime"]);

/** The fields a filter can be on: ID, the doctype's data fields (not hidden; the workflow's state
 * field, hidden or not, as a choice of the workflow's states), created and modified. */
export function filterableFields(meta) {
	const fields = [{ fieldname: "name", label: "ID", fieldtype: "Data" }];
	const workflow = meta.__workflow && meta.__workflow.field ? meta.__workflow : null;
	for (const df of meta.fields || []) {
		if (!df.fieldname || NOT_FILTERABLE.has(df.fieldtype)) continue;
		if (workflow && df.fieldname === workflow.field) {
			const states = (workflow.states || []).map((s) => s.state);
			fields.push({ ...df, fieldtype: "Select", options: states.join("\n") });
		} else if (!df.hidden) fields.push(df);
	}
	fields.push({ fieldname: "owner", label: "Created By", fieldtype: "Link", options: "User" });
	fields.push({ fieldname: "creation", label: "Created On", fieldtype: "Datetime" });
	fields.push({ fieldname: "modified", label: "Last Updated On", fieldtype: "Datetime" });
	return fields;
}

/** How the value of `op` on `df` is entered: "none", "two" (between), "list" (in), "choice"
 * (a Select's options or Check's yes/no), or an <input> type ("text", "number", "date"). */
export function valueKind(df, op) {
	if (op === "is set" || op === "is not set") return "none";
	if (op === "between") return "two";
	if (op === "in") return "list";
	if (op === "like") return "text";
	if (df.fieldtype === "Check" || (df.fieldtype === "Select" && (op === "=" || op === "!="))) return "choice";
	if (NUMBER_TYPES.has(df.fieldtype)) return "number";
	if (DATE_TYPES.has(df.fieldtype) || DATETIME_TYPES.has(df.fieldtype)) return "date";
	return "text";
}

/** The <input> type of a between's two values. */
export function rangeInputType(df) {
	if (NUMBER_TYPES.has(df.fieldtype)) return "number";
	if (DATE_TYPES.has(df.fieldtype) || DATETIME_TYPES.has(df.fieldtype)) return "date";
	return "text";
}

function typed(df, text) {
	const value = String(text ?? "").trim();
	if (value !== "" && (NUMBER_TYPES.has(df.fieldtype) || df.fieldtype === "Check")) {
		const number = Number(value);
		if (Number.isFinite(number)) return number;
	}
	return value;
}

/** The condition `[field, op, value]` for `df`, `op` and the entered `values` (one or two texts),
 * or null while something is missing. */
export function makeFilter(df, op, values = []) {
	const [first = "", second = ""] = values;
	const field = df.fieldname;
	switch (valueKind(df, op)) {
		case "none":
			return [field, "is", op === "is set" ? "set" : "not set"];
		case "two": {
			if (String(first).trim() === "" || String(second).trim() === "") return null;
			return [field, "between", [typed(df, first), typed(df, second)]];
		}
		case "list": {
			const items = String(first).split(",").map((v) => v.trim()).filter(Boolean);
			return items.length ? [field, "in", items.map((v) => typed(df, v))] : null;
		}
		default: {
			if (String(first).trim() === "") return null;
			if (op === "like") {
				const text = String(first).trim();
				return [field, "like", text.includes("%") ? text : `%${text}%`];
			}
			return [field, op, typed(df, first)];
		}
	}
}
