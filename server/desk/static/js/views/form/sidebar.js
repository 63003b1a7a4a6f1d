// The form's sidebar (desk.md §4): who created and last changed the document and when, its
// attachments (open; upload and remove for who may change it: `upload_file`, File deletion), and the
// timeline of its versions (`docinfo.versions`, cut by the server to what the user may read). Every
// value is text. `versionLines` is pure (`node --test` covers it).
import { call, deleteDoc, uploadFile } from "../../api.js";
import { safeFileUrl } from "../../controls/attach.js";
import { formatValue, timeAgo } from "../../format.js";
import { __ } from "../../i18n.js";
import { html, useState } from "../../lib/html.js";
import { fieldLabel, getField } from "../../meta.js";
import { confirmDialog } from "../../ui/confirm.js";
import { showError } from "../../ui/messages.js";

const SHOWN_CHANGES = 3;

function parseData(version) {
	if (version.data && typeof version.data === "object") return version.data;
	try {
		return JSON.parse(version.data || "{}") || {};
	} catch {
		return {};
	}
}

/** A version as lines of text: created, changed fields (old → new, at most three), rows added or
 * removed. `name(user)` gives a user's full name. Pure. */
export function versionLines(version, meta, name = (user) => user) {
	const data = parseData(version);
	const who = name(version.owner);
	const label = (fieldname) => {
		const df = getField(meta, fieldname);
		return __(df ? fieldLabel(df) : fieldname);
	};
	const show = (fieldname, value) => {
		const text = formatValue(value, getField(meta, fieldname) || {});
		return text === "" ? __("(empty)") : text;
	};
	const lines = [];
	if (data.created) lines.push(__("{0} created this", [who]));
	const changed = Array.isArray(data.changed) ? data.changed : [];
	for (const [fieldname, before, after] of changed.slice(0, SHOWN_CHANGES)) {
		lines.push(__("{0} changed {1} from {2} to {3}", [who, label(fieldname), show(fieldname, before), show(fieldname, after)]));
	}
	if (changed.length > SHOWN_CHANGES) lines.push(__("{0} changed {1} more fields", [who, changed.length - SHOWN_CHANGES]));
	const tables = (part) => [...new Set((Array.isArray(data[part]) ? data[part] : []).map((entry) => entry[0]))];
	for (const table of tables("added")) lines.push(__("{0} added rows to {1}", [who, label(table)]));
	for (const table of tables("removed")) lines.push(__("{0} removed rows from {1}", [who, label(table)]));
	for (const table of tables("row_changed")) lines.push(__("{0} changed rows of {1}", [who, label(table)]));
	return lines;
}

function fullName(docinfo, user) {
	const info = docinfo && docinfo.user_info && docinfo.user_info[user];
	return (info && (info.fullname || info.full_name)) || user || "";
}

/** Load the form's docinfo again (after a save, an action or an attachment). */
export async function refreshDocinfo(frm) {
	if (frm.is_new() || frm.meta.issingle) return;
	const body = await call("fw.desk.form.load.get_docinfo", { doctype: frm.doctype, name: frm.docname }, { httpMethod: "GET" });
	if (body && body.docinfo) {
		frm.docinfo = body.docinfo;
		frm.notify();
	}
}

function Attachments({ frm, canChange }) {
	const [busy, setBusy] = useState(false);
	const files = (frm.docinfo && frm.docinfo.attachments) || [];
	const refresh = () => refreshDocinfo(frm);
	async function upload(event) {
		const input = event.currentTarget;
		const file = input.files && input.files[0];
		if (!file) return;
		setBusy(true);
		try {
			await uploadFile(file, { doctype: frm.doctype, docname: frm.docname });
			await refresh();
		} catch (error) {
			showError(error);
		} finally {
			setBusy(false);
			input.value = "";
		}
	}
	async function remove(file) {
		if (!(await confirmDialog(__("Remove the attachment {0}?", [file.file_name || file.name]), { title: __("Remove") }))) return;
		try {
			await deleteDoc("File", file.name);
			await refresh();
		} catch (error) {
			showError(error);
		}
	}
	return html`<section class="sidebar-part" aria-labelledby="form-attachments">
		<h2 class="sidebar-head" id="form-attachments">${__("Attachments")}</h2>
		${files.length
			? html`<ul class="sidebar-list">
					${files.map(
						(file) => html`<li key=${file.name}>
							${safeFileUrl(file.file_url)
								? html`<a href=${file.file_url} target="_blank" rel="noopener noreferrer">${file.file_name || file.file_url}</a>`
								: html`<span>${file.file_name || file.file_url}</span>`}
							${canChange
								? html`<button type="button" class="btn-icon" onClick=${() => remove(file)}>
										×<span class="sr-only"> ${__("Remove {0}", [file.file_name || file.name])}</span></button>`
								: null}
						</li>`,
					)}
				</ul>`
			: html`<p class="sidebar-empty">${__("No attachments")}</p>`}
		${canChange
			? html`<label class="sidebar-upload">${__("Attach a file")}
					<input type="file" disabled=${busy} onChange=${upload} /></label>`
			: null}
	</section>`;
}

export function FormSidebar({ frm }) {
	if (frm.is_new() || frm.meta.issingle) return null;
	const docinfo = frm.docinfo || {};
	const doc = frm.doc;
	const canChange = Boolean(frm.perm && frm.perm[0] && Number(frm.perm[0].write));
	const versions = docinfo.versions || [];
	return html`<aside class="form-sidebar" aria-label=${__("Document information")}>
		<section class="sidebar-part">
			${doc.owner
				? html`<p>${__("Created by {0}", [fullName(docinfo, doc.owner)])} · <time datetime=${doc.creation}>${timeAgo(doc.creation)}</time></p>`
				: null}
			${doc.modified_by
				? html`<p>${__("Last edited by {0}", [fullName(docinfo, doc.modified_by)])} · <time datetime=${doc.modified}>${timeAgo(doc.modified)}</time></p>`
				: null}
		</section>
		<${Attachments} frm=${frm} canChange=${canChange} />
		${versions.length
			? html`<section class="sidebar-part" aria-labelledby="form-timeline">
					<h2 class="sidebar-head" id="form-timeline">${__("Activity")}</h2>
					<ol class="sidebar-list timeline">
						${versions.map((version) => html`<li key=${version.name}>
							${versionLines(version, frm.meta, (user) => fullName(docinfo, user)).map((line) => html`<p>${line}</p>`)}
							<time datetime=${version.creation}>${timeAgo(version.creation)}</time>
						</li>`)}
					</ol>
				</section>`
			: null}
	</aside>`;
}
