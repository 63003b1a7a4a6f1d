// The list's group-by sidebar (desk.md §3, Frappe's list sidebar): "Created By" and the doctype's
// Select and Link fields that the list shows or filters by (and the workflow state), each a button
// that, opened, shows how many of the rows matching the list's filters hold each value
// (`fw.desk.listview.get_group_by_count`, counted by the server under the user's rights). A click on
// a value filters the list by it ("Not set": the rows without one). Counts are asked for only while
// a group is open, and again after each reload of the list (new filters, another user's change).
import { call } from "../../api.js";
import { formatValue } from "../../format.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";

const GROUPABLE = new Set(["Select", "Link"]);

// Frappe's "Assigned To" group: the users with an open ToDo on the rows; choosing one filters on `_assign`
const ASSIGNED_TO = "assigned_to";

/** The fields to group by: "Assigned To" and owner first, then the listed, standard-filter or workflow Select/Link fields. */
export function groupByFields(meta) {
	const workflow = meta.__workflow && meta.__workflow.field;
	const out = [
		{ fieldname: ASSIGNED_TO, label: "Assigned To", fieldtype: "Link", options: "User" },
		{ fieldname: "owner", label: "Created By", fieldtype: "Link", options: "User" },
	];
	for (const df of meta.fields || []) {
		if (!df.fieldname || (df.hidden && df.fieldname !== workflow) || !GROUPABLE.has(df.fieldtype)) continue;
		if (df.in_list_view || df.in_standard_filter || df.fieldname === workflow) out.push(df);
	}
	return out;
}

/** The filters after choosing `value` of `fieldname` (the field's other conditions replaced). */
export function withGroupFilter(filters, fieldname, value) {
	if (fieldname === ASSIGNED_TO) return [...filters.filter((f) => f[0] !== "_assign"), ["_assign", "like", `%${value}%`]];
	const rest = filters.filter((f) => f[0] !== fieldname);
	return [...rest, value === null || value === undefined || value === "" ? [fieldname, "is", "not set"] : [fieldname, "=", value]];
}

function groupText(meta, df, group) {
	if (group.name === null || group.name === undefined || group.name === "") return __("Not set");
	if (group.title && group.title !== group.name) return `${group.title} (${group.name})`;
	const workflow = meta.__workflow && meta.__workflow.field;
	if (df.fieldtype === "Select" || df.fieldname === workflow) return __(String(group.name));
	return formatValue(group.name, df);
}

function Group({ meta, df, filters, version, onChange }) {
	const [open, setOpen] = useState(false);
	const [groups, setGroups] = useState(null);
	const [error, setError] = useState(null);
	useEffect(() => {
		if (!open) return undefined;
		let cancelled = false;
		call("fw.desk.listview.get_group_by_count", { doctype: meta.name, field: df.fieldname, current_filters: filters },
			{ httpMethod: "GET" })
			.then((body) => !cancelled && (setGroups(Array.isArray(body.message) ? body.message : []), setError(null)))
			.catch((e) => !cancelled && setError(e.message));
		return () => {
			cancelled = true;
		};
	}, [open, version]); // every change of the filters reloads the list, which counts as a new version
	const label = __(df.label || df.fieldname);
	const listId = `group-by-${df.fieldname}`;
	return html`<li class="group-by">
		<button type="button" class="group-by-toggle" aria-expanded=${open ? "true" : "false"} aria-controls=${listId}
			onClick=${() => setOpen(!open)}>${label}</button>
		${open
			? html`<div id=${listId}>
					${error ? html`<p class="group-by-message" role="alert">${error}</p>` : null}
					${!groups && !error ? html`<p class="group-by-message">${__("Loading…")}</p>` : null}
					${groups && !groups.length ? html`<p class="group-by-message">${__("No values")}</p>` : null}
					${groups && groups.length
						? html`<ul class="group-by-values" aria-label=${__("Counts by {0}", [label])}>
								${groups.map((group) => html`<li key=${String(group.name)}>
									<button type="button" class="group-by-value" onClick=${() => onChange(withGroupFilter(filters, df.fieldname, group.name))}>
										<span class="group-by-name">${groupText(meta, df, group)}</span>
										<span class="group-by-count">${String(group.count)}</span>
									</button>
								</li>`)}
							</ul>`
						: null}
				</div>`
			: null}
	</li>`;
}

export function GroupBySidebar({ meta, filters, version, onChange }) {
	return html`<aside class="list-sidebar" aria-label=${__("Group by")}>
		<h2 class="list-sidebar-title">${__("Group by")}</h2>
		<ul class="group-by-list">
			${groupByFields(meta).map((df) => html`<${Group} key=${df.fieldname} meta=${meta} df=${df} filters=${filters}
				version=${version} onChange=${onChange} />`)}
		</ul>
	</aside>`;
}
