// The report view's dialogs: "Pick Columns" (the doctype's and its child tables' fields as
// checkboxes) and "Save As" (a name and the roles the Report is shared with).
import { call, getList } from "../../api.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";
import { openDialog } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";

function ColumnsForm({ choices, chosen, apply }) {
	const [picked, setPicked] = useState(() => new Set(chosen));
	const toggle = (key) => {
		const next = new Set(picked);
		if (next.has(key)) next.delete(key);
		else next.add(key);
		setPicked(next);
	};
	return html`<div class="report-columns-form">
		<fieldset class="column-choices"><legend>${__("Columns")}</legend>
			${choices.map((c) => html`<label class="column-choice" key=${c.key}>
				<input type="checkbox" checked=${picked.has(c.key)} onChange=${() => toggle(c.key)} />${c.label}</label>`)}
		</fieldset>
		<button type="button" class="btn btn-primary" disabled=${!picked.size}
			onClick=${() => apply(choices.map((c) => c.key).filter((k) => picked.has(k)))}>${__("Apply")}</button>
	</div>`;
}

export function openPickColumns({ choices, chosen, onChange }) {
	const handle = openDialog({
		title: __("Pick Columns"),
		body: html`<${ColumnsForm} choices=${choices} chosen=${chosen} apply=${(keys) => {
			handle.close();
			onChange(keys);
		}} />`,
	});
	return handle;
}

function SaveForm({ doctype, initialName, settings, done }) {
	const [name, setName] = useState(initialName || "");
	const [roles, setRoles] = useState([]);
	const [shared, setShared] = useState(() => new Set());
	const [busy, setBusy] = useState(false);
	useEffect(() => {
		getList("Role", { fields: ["name"], filters: [["disabled", "=", 0]], orderBy: "name asc", limit: 200 })
			.then((body) => setRoles((body.data || []).map((r) => r.name).filter((r) => !["Administrator", "Guest", "All"].includes(r))))
			.catch((error) => showError(error));
	}, []);
	const toggle = (role) => {
		const next = new Set(shared);
		if (next.has(role)) next.delete(role);
		else next.add(role);
		setShared(next);
	};
	async function save() {
		setBusy(true);
		try {
			const body = await call("fw.desk.reportview.save_report", { name, doctype, report_settings: settings, roles: [...shared] });
			done(body.message);
		} catch (error) {
			showError(error);
		} finally {
			setBusy(false);
		}
	}
	return html`<div class="report-save-form">
		<label class="form-label">${__("Report Name")}
			<input class="form-control" value=${name} onInput=${(e) => setName(e.target.value)} autofocus /></label>
		<fieldset class="column-choices"><legend>${__("Share with roles")}</legend>
			${roles.map((role) => html`<label class="column-choice" key=${role}>
				<input type="checkbox" checked=${shared.has(role)} onChange=${() => toggle(role)} />${__(role)}</label>`)}
		</fieldset>
		<button type="button" class="btn btn-primary" disabled=${busy || !name.trim()} onClick=${save}>${__("Save")}</button>
	</div>`;
}

export function openSaveAs({ doctype, initialName, settings, onSaved }) {
	const handle = openDialog({
		title: __("Save As"),
		body: html`<${SaveForm} doctype=${doctype} initialName=${initialName} settings=${settings} done=${(saved) => {
			handle.close();
			onSaved(saved);
		}} />`,
	});
	return handle;
}
