// Bulk actions of the list (desk.md §3): with rows selected, an "Actions" menu offers the workflow
// actions some selected row's state has for the user's roles, and Delete (asked first). The server
// checks every row on its own (`bulk_workflow_approval`, `delete_items`): each row succeeds or is
// refused with the server's message, and one refusal does not stop the others. The results are shown
// per row in a dialog. A large selection runs as a job on the server: its progress bar is ui/progress.js's,
// and the rows' results arrive as the realtime event `bulk_result`.
import { call } from "../../api.js";
import { boot, hasRight } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { on } from "../../realtime.js";
import { confirmDialog } from "../../ui/confirm.js";
import { openDialog, showToast } from "../../ui/layers.js";
import { Menu } from "../../ui/menu.js";
import { showError } from "../../ui/messages.js";

/** The workflow actions offered for the selected rows: each action some selected row's state has
 * for a role the user holds (all for Administrator), in the workflow's order. Pure. */
export function bulkWorkflowActions(meta, rows, { roles = [], user = null } = {}) {
	const workflow = meta && meta.__workflow;
	if (!workflow || !workflow.field || !Array.isArray(workflow.transitions)) return [];
	const states = new Set(rows.map((row) => row[workflow.field] || (workflow.states[0] || {}).state));
	const held = new Set(roles);
	const out = [];
	for (const t of workflow.transitions) {
		if (states.has(t.state) && (user === "Administrator" || held.has(t.allowed)) && !out.includes(t.action)) out.push(t.action);
	}
	return out;
}

/** Listen for the `bulk_result` of the job started for (doctype, kind, action): `{result, stop}`. */
function jobResult(doctype, kind, action) {
	let stop = () => {};
	const result = new Promise((resolve) => {
		stop = on("bulk_result", (data) => {
			if (!data || data.doctype !== doctype || data.kind !== kind || (kind === "workflow" && data.action !== action)) return;
			stop();
			resolve(data);
		});
	});
	return { result, stop };
}

/** Run the action over `names`: the per-row result (`{results, succeeded, failed}`), waiting for the
 * job's end when the server ran it as one (`onJob(total)` is told first). */
export async function runBulk(doctype, kind, names, action, { onJob } = {}) {
	const job = jobResult(doctype, kind, action); // before the request: a quick job may end before its answer
	let body;
	try {
		body = kind === "delete"
			? await call("fw.desk.reportview.delete_items", { doctype, items: names })
			: await call("fw.model.workflow.bulk_workflow_approval", { doctype, docnames: names, action });
	} catch (error) {
		job.stop();
		throw error;
	}
	const answer = body.message || {};
	if (!answer.job_id) {
		job.stop();
		return answer;
	}
	if (onJob) onJob(answer.total);
	return job.result;
}

function ResultTable({ result, titles }) {
	return html`<div class="bulk-results">
		<p class="bulk-summary">${__("{0} succeeded, {1} refused", [Number(result.succeeded) || 0, Number(result.failed) || 0])}</p>
		<table class="list-table">
			<caption class="sr-only">${__("Result per document")}</caption>
			<thead><tr><th scope="col">${__("Document")}</th><th scope="col">${__("Result")}</th><th scope="col">${__("Message")}</th></tr></thead>
			<tbody>
				${(result.results || []).map((row) => html`<tr key=${row.name}>
					<th scope="row">${titles[row.name] && titles[row.name] !== row.name ? `${titles[row.name]} (${row.name})` : String(row.name)}</th>
					<td class=${row.ok ? "bulk-ok" : "bulk-refused"}>${row.ok ? __("Succeeded") : __("Refused")}</td>
					<td>${row.ok ? "" : String(row.message || row.exc_type || "")}</td>
				</tr>`)}
			</tbody>
		</table>
	</div>`;
}

export function showResults(label, result, titles = {}) {
	openDialog({
		title: __("{0}: results", [label]),
		size: "large",
		indicator: Number(result.failed) ? "orange" : "green",
		body: html`<${ResultTable} result=${result} titles=${titles} />`,
		actions: [{ label: __("Close"), primary: true, onClick: (handle) => handle.close() }],
	});
}

/** The bar over the list while rows are selected: how many, the actions menu, and "Clear selection". */
export function BulkBar({ meta, rows, selected, titles, busy, onClear, onStart, onDone }) {
	const doctype = meta.name;
	const chosen = rows.filter((row) => selected.has(row.name));
	const names = [...selected];
	async function run(kind, action, label) {
		if (kind === "delete") {
			const yes = await confirmDialog(__("Delete {0} documents? This cannot be undone.", [names.length]), { title: __("Delete") });
			if (!yes) return;
		}
		onStart(__("{0} of {1} documents…", [label, names.length]));
		try {
			// a job: the list is free again at once; its progress bar shows, then its results
			const result = await runBulk(doctype, kind, names, action, {
				onJob: (total) => {
					showToast(__("{0} runs in the background ({1} documents)", [label, total]));
					onDone();
				},
			});
			showResults(label, result, titles);
		} catch (error) {
			showError(error);
		} finally {
			onDone();
		}
	}
	const actions = bulkWorkflowActions(meta, chosen, { roles: boot.roles, user: boot.user }).map((action) => ({
		label: __(action),
		onClick: () => run("workflow", action, __(action)),
	}));
	if (hasRight(doctype, "delete")) actions.push({ label: __("Delete"), onClick: () => run("delete", null, __("Delete")) });
	return html`<div class="bulk-bar" role="group" aria-label=${__("Selected documents")}>
		<span class="bulk-count">${__("{0} selected", [names.length])}</span>
		${busy ? html`<span class="bulk-busy" role="status">${busy}</span>` : null}
		${actions.length && !busy ? html`<${Menu} label=${__("Actions")} items=${actions} align="left" />` : null}
		<button type="button" class="btn btn-link btn-sm" onClick=${onClear}>${__("Clear selection")}</button>
	</div>`;
}
