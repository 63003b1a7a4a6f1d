// The Desk's routes (desk.md §1) as data: parse a location into a route, and build URLs. Pure: no
// DOM, no history (router.js does the navigating), so `node --test` covers it.
//
//   /app                          {kind: "home"}
//   /app/<slug>                   {kind: "list", doctype, filters} (a Single doctype: its form)
//   /app/<slug>/new               {kind: "form", doctype, name: null, isNew: true}
//   /app/<slug>/<name>            {kind: "form", doctype, name}
//   /app/<slug>/view/report[/<Report>]  {kind: "report-view", doctype, report} (the Report Builder)
//   /app/query-report/<Report>    {kind: "query-report", report}
//   /app/customize-form           {kind: "customize-form", doctype} (`?doc_type=<DocType>`)
//   anything else under /app      {kind: "not-found"}
// `doctypeForSlug(segment)` and `isSingle(doctype)` come from the boot.

export const APP = "/app";

function decode(segment) {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/** Query-string pairs as list filters: `employee=X` → ["employee", "=", "X"]; a JSON value
 * `status=["!=","Left"]` → ["status", "!=", "Left"] (Frappe's route options). */
export function filtersFromSearch(search) {
	const filters = [];
	const params = new URLSearchParams(search || "");
	for (const [field, raw] of params) {
		if (!/^[a-z_][a-z0-9_]*$/.test(field)) continue;
		let value = raw;
		let op = "=";
		if (raw.startsWith("[")) {
			try {
				const parsed = JSON.parse(raw);
				if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === "string") {
					[op, value] = parsed;
				}
			} catch {
				// not JSON: the literal text
			}
		}
		filters.push([field, op, value]);
	}
	return filters;
}

/** The query string of list filters (the inverse of `filtersFromSearch`). */
export function searchFromFilters(filters) {
	const params = new URLSearchParams();
	for (const [field, op, value] of filters || []) {
		params.append(field, op === "=" && typeof value !== "object" ? String(value) : JSON.stringify([op, value]));
	}
	const text = params.toString();
	return text ? `?${text}` : "";
}

export function parseRoute(pathname, search, { doctypeForSlug, isSingle }) {
	const path = pathname.replace(/\/+$/, "");
	if (path === APP || path === "") return { kind: "home" };
	if (!path.startsWith(`${APP}/`)) return { kind: "not-found" };
	const parts = path.slice(APP.length + 1).split("/").map(decode);
	if (parts[0] === "query-report") {
		return parts.length === 2 && parts[1] ? { kind: "query-report", report: parts[1] } : { kind: "not-found" };
	}
	if (parts[0] === "customize-form" && parts.length === 1) {
		return { kind: "customize-form", doctype: new URLSearchParams(search || "").get("doc_type") || null };
	}
	const doctype = doctypeForSlug(parts[0]);
	if (doctype && parts[1] === "view" && parts[2] === "report" && parts.length <= 4 && !isSingle(doctype)) {
		return { kind: "report-view", doctype, report: parts[3] || null };
	}
	if (!doctype || parts.length > 2) return { kind: "not-found", doctype };
	if (parts.length === 1) {
		if (isSingle(doctype)) return { kind: "form", doctype, name: doctype, isNew: false };
		return { kind: "list", doctype, filters: filtersFromSearch(search) };
	}
	if (parts[1] === "new") return { kind: "form", doctype, name: null, isNew: true };
	return { kind: "form", doctype, name: parts[1], isNew: false };
}

export function listUrl(doctype, filters, slug) {
	return `${APP}/${encodeURIComponent(slug(doctype))}${searchFromFilters(filters)}`;
}

export function formUrl(doctype, name, slug) {
	return `${APP}/${encodeURIComponent(slug(doctype))}/${encodeURIComponent(name)}`;
}

export function newFormUrl(doctype, slug) {
	return `${APP}/${encodeURIComponent(slug(doctype))}/new`;
}

export function reportUrl(report) {
	return `${APP}/query-report/${encodeURIComponent(report)}`;
}

/** Frappe's `set_route` arguments as a URL: ("List", dt, filters), ("Form", dt, name),
 * ("query-report", name), ("app"), a path string, or an array of those. */
export function routeToUrl(args, slug) {
	const parts = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
	const [first, second, third] = parts;
	if (typeof first === "string" && first.startsWith("/")) return first;
	const kind = String(first || "").toLowerCase();
	if (kind === "list" && second) return listUrl(second, objectFilters(third), slug);
	if (kind === "form" && second) return third ? formUrl(second, third, slug) : newFormUrl(second, slug);
	if (kind === "query-report" && second) return reportUrl(second);
	if (kind === "" || kind === "app" || kind === "workspaces") return APP;
	// Frappe also accepts ("Warehouse Violation", "name") and path segments joined by "/"
	return `${APP}/${parts.filter((p) => p !== undefined && p !== null).map((p) => encodeURIComponent(String(p))).join("/")}`;
}

/** `{field: value}` or `{field: [op, value]}` as list filters. */
export function objectFilters(value) {
	if (!value || typeof value !== "object") return [];
	if (Array.isArray(value)) return value;
	return Object.entries(value).map(([field, v]) =>
		Array.isArray(v) && v.length === 2 ? [field, v[0], v[1]] : [field, "=", v],
	);
}
