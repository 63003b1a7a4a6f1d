// The sidebar's "Shared With" (business.md §1.2, §6): who the document is shared with
// (`docinfo.shared`) and what each share grants; for who holds `share` on it, a "Share" button (a
// dialog with a user field and the rights as checkboxes: fw.share.add) and a "Remove <user>" button
// per share (fw.share.remove). The server judges who may grant what; its refusal is shown as is.
import { call } from "../../api.js";
import { boot } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { fieldDialog } from "../../ui/field_dialog.js";
import { showError } from "../../ui/messages.js";
import { fullName, refreshDocinfo } from "./docinfo.js";

const RIGHTS = ["read", "write", "submit", "share"];

function rightsText(share) {
	return RIGHTS.filter((right) => Number(share[right])).map((right) => __(right)).join(", ");
}

function openShareDialog(frm) {
	const rights = RIGHTS.filter((right) => right !== "submit" || frm.meta.is_submittable);
	fieldDialog({
		title: __("Share {0}", [frm.docname]),
		fields: [
			{ fieldname: "user", fieldtype: "Link", options: "User", label: "User", reqd: 1 },
			...rights.map((right) => ({ fieldname: right, fieldtype: "Check", label: right.charAt(0).toUpperCase() + right.slice(1),
				default: right === "read" ? 1 : 0, read_only: right === "read" })),
		],
		submitLabel: __("Share"),
		onSubmit: async (values) => {
			await call("fw.share.add", { doctype: frm.doctype, name: frm.docname, ...values });
			await refreshDocinfo(frm);
		},
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
