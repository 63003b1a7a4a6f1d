// The list sidebar's "Saved Reports" (business.md §5): a button that, when opened, lists the doctype's
// Report Builder reports the user may open (fw.desk.reportview.get_reports), each a link to
// /app/<doctype>/view/report/<name>. Loaded on first open, so a list still costs its two requests.
import { call } from "../../api.js";
import { slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html, useState } from "../../lib/html.js";
import { showError } from "../../ui/messages.js";

export function SavedReports({ doctype }) {
	const [open, setOpen] = useState(false);
	const [reports, setReports] = useState(null);
	function toggle() {
		setOpen(!open);
		if (reports === null) {
			call("fw.desk.reportview.get_reports", { doctype }, { httpMethod: "GET" })
				.then((body) => setReports(body.message || []))
				.catch((error) => showError(error));
		}
	}
	const base = `/app/${encodeURIComponent(slug(doctype))}/view/report`;
	return html`<nav class="list-saved-reports" aria-label=${__("Saved Reports")}>
		<button type="button" class="btn btn-default btn-sm" aria-expanded=${open ? "true" : "false"} onClick=${toggle}>${__("Saved Reports")}</button>
		${open
			? html`<ul>
					<li><a href=${base}>${__("Report View")}</a></li>
					${(reports || []).map((r) => html`<li key=${r.name}><a href=${`${base}/${encodeURIComponent(r.name)}`}>${r.name}</a></li>`)}
				</ul>`
			: null}
	</nav>`;
}
