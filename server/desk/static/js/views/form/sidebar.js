// The form's sidebar (desk.md §4): who created and last changed the document and when (the age; the
// date and time in the system's format as its title), its attachments (attachments.js), who it is
// shared with (shares.js) and its timeline of versions and comments (timeline.js). Every value is text.
import { formatDatetime, timeAgo } from "../../format.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { Assignments } from "./assignments.js";
import { Attachments } from "./attachments.js";
import { fullName, refreshDocinfo } from "./docinfo.js";
import { Shares } from "./shares.js";
import { Timeline, versionLines } from "./timeline.js";

export { refreshDocinfo, versionLines };

export function FormSidebar({ frm }) {
	if (frm.is_new() || frm.meta.issingle) return null;
	const docinfo = frm.docinfo || {};
	const doc = frm.doc;
	const canChange = Boolean(frm.perm && frm.perm[0] && Number(frm.perm[0].write));
	const name = (user) => fullName(docinfo, user);
	return html`<aside class="form-sidebar" aria-label=${__("Document information")}>
		<section class="sidebar-part">
			${doc.owner
				? html`<p>${__("Created by {0}", [name(doc.owner)])} · <time datetime=${doc.creation} title=${formatDatetime(doc.creation)}>${timeAgo(doc.creation)}</time></p>`
				: null}
			${doc.modified_by
				? html`<p>${__("Last edited by {0}", [name(doc.modified_by)])} · <time datetime=${doc.modified} title=${formatDatetime(doc.modified)}>${timeAgo(doc.modified)}</time></p>`
				: null}
		</section>
		<${Assignments} frm=${frm} fullName=${name} />
		<${Attachments} frm=${frm} canChange=${canChange} />
		<${Shares} frm=${frm} />
		<${Timeline} frm=${frm} fullName=${name} />
	</aside>`;
}
