// The sidebar's "Shared With" (business.md §1.2, §6): who the document is shared with
// (`docinfo.shared`) and what each share grants; for who holds `share` on it, a "Share" button (a
// dialog with a user field and the rights as checkboxes: fw.share.add) and a "Remove <user>" button
// per share (fw.share.remove). The server judges who may grant what; its refusal is shown as is.
import { call } from "../../api.js";
import { boot } from "../../boot.js";
import { controlFor } from "../../controls/registry.js";
import { __ } from "../../i18n.js";
import { html, useState } from "../../lib/html.js";
import { openDialog } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";
import { fullName, refreshDocinfo } from "./docinfo.js";

const RIGHTS = ["read", "write", "submit", "share"];

function rightsText(share) {
	return RIGHTS.filter((right) => Number(share[right])).map((right) => __(right)).join(", ");
}

function ShareForm({ frm, onDone }) {
	const [values, setValues] = useState({ user: "", read: 1, write: 0, submit: 0, share: 0 });
	const [error, setError] = useState(null);
	const [saving, setSaving] = useState(false);
	const set = (field) => (value) => setValues((old) => ({ ...old, [field]: value }));
	const rights = RIGHTS.filter((right) => right !== "submit" || frm.meta.is_submittable);
	const User = controlFor("Link");
	const Check = controlFor("Check");
	async function submit(event) {
		event.preventDefault();
		if (!values.user) {
			setError(__("Choose a user to share with, or share with everyone"));
			return;
		}
		setSaving(true);
		try {
			await call("fw.share.add", { doctype: frm.doctype, name: frm.docname, ...values });
			onDone();
		} catch (err) {
			setError(err.message || String(err));
			setSaving(false);
		}
	}
	return html`<form class="share-form" novalidate onSubmit=${submit}>
		<${User} df=${{ fieldname: "user", fieldtype: "Link", options: "User", label: "User", reqd: 1 }} id="share-user"
			value=${values.user} doc=${values} readOnly=${saving} onInput=${set("user")} onChange=${set("user")} />
		${rights.map(
			(right) => html`<${Check} key=${right} df=${{ fieldname: right, fieldtype: "Check", label: right.charAt(0).toUpperCase() + right.slice(1) }}
				id=${`share-${right}`} value=${values[right]} readOnly=${saving || right === "read"} onChange=${set(right)} />`,
		)}
		${error ? html`<p class="control-error" role="alert">${error}</p>` : null}
		<div class="modal-footer">
			<button type="submit" class="btn btn-primary" disabled=${saving}>${__("Share")}</button>
		</div>
	</form>`;
}

function openShareDialog(frm) {
	const handle = openDialog({
		title: __("Share {0}", [frm.docname]),
		body: () => html`<${ShareForm} frm=${frm} onDone=${async () => {
			handle.close("saved");
			await refreshDocinfo(frm);
		}} />`,
	});
}

export function Shares({ frm }) {
	const docinfo = frm.docinfo || {};
	const shared = docinfo.shared || [];
	const canShare = Boolean(docinfo.permissions && Number(docinfo.permissions.share));
	async function remove(share) {
		try {
			await call("fw.share.remove", { doctype: frm.doctype, name: frm.docname, user: share.user, everyone: share.everyone ? 1 : 0 });
			await refreshDocinfo(frm);
		} catch (error) {
			showError(error);
		}
	}
	const who = (share) => (Number(share.everyone) ? __("Everyone") : fullName(docinfo, share.user));
	return html`<section class="sidebar-part" aria-labelledby="form-shared">
		<h2 class="sidebar-head" id="form-shared">${__("Shared With")}</h2>
		${shared.length
			? html`<ul class="sidebar-list" aria-labelledby="form-shared">
					${shared.map(
						(share) => html`<li key=${share.name}>
							<span>${who(share)}</span> <span class="text-muted">(${rightsText(share)})</span>
							${canShare || share.user === boot.user
								? html`<button type="button" class="btn-icon" onClick=${() => remove(share)}>
										×<span class="sr-only"> ${__("Remove {0}", [share.user || __("Everyone")])}</span></button>`
								: null}
						</li>`,
					)}
				</ul>`
			: html`<p class="sidebar-empty">${__("Not shared with anyone")}</p>`}
		${canShare ? html`<button type="button" class="btn btn-default btn-sm" onClick=${() => openShareDialog(frm)}>${__("Share")}</button>` : null}
	</section>`;
}
