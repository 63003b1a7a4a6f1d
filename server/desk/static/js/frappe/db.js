// `frappe.db`: Frappe's client-side database helpers, each one call of a whitelisted `fw.client.*`
// method (permission-aware on the server). The promises resolve as Frappe's do: `get_value` to
// `{message: {field: value}}` (and calls `callback(message)`), `get_list` to the rows, `get_doc` to
// the document, `exists` to the name or false, `count` to a number. `makeDb(call)` takes the function
// that calls the server (`call(method, args, {httpMethod})` → the response body), so `node --test`
// covers it with a fake.

/** Frappe's `filters` argument: a name, an object, or a list of conditions, as the server reads it. */
function filtersArg(filters) {
	if (filters === undefined || filters === null) return undefined;
	return typeof filters === "string" ? filters : JSON.stringify(filters);
}

export function makeDb(call) {
	const get = (method, args) => call(method, args, { httpMethod: "GET" });
	const post = (method, args) => call(method, args, { httpMethod: "POST" });

	const db = {
		/** `get_value(doctype, name_or_filters, fieldname(s), callback, parent_doc)` → {message: {...}}. */
		async get_value(doctype, filters, fieldname, callback, parent) {
			const fields = Array.isArray(fieldname) ? fieldname : [fieldname || "name"];
			const args = { doctype, fieldname: JSON.stringify(fields), filters: filtersArg(filters) };
			if (parent) args.parent = parent;
			const body = (await get("fw.client.get_value", args)) || {};
			const message = body.message && typeof body.message === "object" && !Array.isArray(body.message) ? body.message : {};
			if (typeof callback === "function") callback(message);
			return { message };
		},

		async get_single_value(doctype, field) {
			const body = await get("fw.client.get_single_value", { doctype, field });
			return body ? body.message : undefined;
		},

		/** `get_list(doctype, {fields, filters, or_filters, order_by, limit, start, group_by})` → rows. */
		async get_list(doctype, args = {}) {
			const query = { doctype };
			if (args.fields) query.fields = JSON.stringify(args.fields);
			if (args.filters) query.filters = filtersArg(args.filters);
			if (args.or_filters) query.or_filters = filtersArg(args.or_filters);
			if (args.order_by) query.order_by = args.order_by;
			if (args.group_by) query.group_by = args.group_by;
			const limit = args.limit ?? args.page_length ?? args.limit_page_length;
			if (limit !== undefined) query.limit_page_length = limit;
			const start = args.start ?? args.limit_start;
			if (start !== undefined) query.limit_start = start;
			const body = await get("fw.client.get_list", query);
			return (body && body.message) || [];
		},

		get_all(doctype, args) {
			return db.get_list(doctype, args);
		},

		/** The whole document (by name, or the first one matching `filters`). */
		async get_doc(doctype, name, filters) {
			const args = { doctype };
			if (name) args.name = name;
			if (filters) args.filters = filtersArg(filters);
			const body = await get("fw.client.get", args);
			return body ? body.message : undefined;
		},

		/** `exists(doctype, name_or_filters)` → the name, or false (Frappe resolves to a boolean). */
		async exists(doctype, filters) {
			const { message } = await db.get_value(doctype, filters, "name");
			return message && message.name ? message.name : false;
		},

		/** `count(doctype, {filters})` (or `count(doctype, filters)`) → a number. */
		async count(doctype, args) {
			const filters = args && typeof args === "object" && !Array.isArray(args) && "filters" in args ? args.filters : args;
			const body = await get("fw.client.get_count", { doctype, filters: filtersArg(filters || {}) });
			return Number(body && body.message) || 0;
		},

		/** `set_value(doctype, name, field, value)` or `(doctype, name, {field: value})` → {message: doc}. */
		async set_value(doctype, name, fieldname, value, callback) {
			const fields = fieldname && typeof fieldname === "object" ? JSON.stringify(fieldname) : fieldname;
			const body = (await post("fw.client.set_value", { doctype, name, fieldname: fields, value })) || {};
			if (typeof callback === "function") callback(body.message);
			return { message: body.message };
		},

		async insert(doc) {
			const body = await post("fw.client.insert", { doc });
			return body ? body.message : undefined;
		},

		async delete_doc(doctype, name) {
			await post("fw.client.delete", { doctype, name });
			return { message: null };
		},
	};
	return db;
}
