// The form's "Print" (business.md §5, §6): a preview of /printview in a frame, with the "Print
// Format" and "Letter Head" selectors, "PDF" (the server's fw.utils.print_format.download_pdf as a
// download) and "Print" (the browser's print of the preview). The page is rendered by the server
// (engine/printing); this only chooses and shows it.
import { getList } from "../../api.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useRef, useState } from "../../lib/html.js";
import { openDialog } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";

const STANDARD = "Standard";
const NO_LETTERHEAD = "No Letterhead";

/** The query of a print of `doctype` `name` in `format` on `letterhead`. */
export function printQuery(doctype, name, format, letterhead) {
	const query = new URLSearchParams({ doctype, name });
	if (format && format !== STANDARD) query.set("format", format);
	if (letterhead) query.set("letterhead", letterhead);
	return query.toString();
}

async function names(doctype, filters) {
	const body = await getList(doctype, { fields: ["name"], filters, limit: 100, orderBy: "name asc" });
	return (body.data || []).map((row) => row.name);
}

function PrintPreview({ doctype, name }) {
	const [formats, setFormats] = useState([STANDARD]);
	const [heads, setHeads] = useState([]);
	const [format, setFormat] = useState(STANDARD);
	const [letterhead, setLetterhead] = useState("");
	const frame = useRef(null);

	useEffect(() => {
		Promise.all([names("Print Format", [["doc_type", "=", doctype], ["disabled", "=", 0]]),
			names("Letter Head", [["disabled", "=", 0]])])
			.then(([found, letterHeads]) => {
				setFormats([STANDARD, ...found]);
				setHeads(letterHeads);
			})
			.catch((error) => showError(error));
	}, [doctype]);

	const query = printQuery(doctype, name, format, letterhead);
	function pdf() {
		const link = document.createElement("a");
		link.href = `/api/method/fw.utils.print_format.download_pdf?${query}`;
		link.download = `${doctype} ${name}.pdf`;
		document.body.appendChild(link);
		link.click();
		link.remove();
	}
	function print() {
		const target = frame.current && frame.current.contentWindow;
		if (target) target.print();
	}
	return html`<div class="print-preview">
		<div class="print-toolbar">
			<label>${__("Print Format")}
				<select class="form-control" value=${format} onChange=${(e) => setFormat(e.target.value)}>
					${formats.map((f) => html`<option key=${f} value=${f}>${__(f)}</option>`)}
				</select>
			</label>
			<label>${__("Letter Head")}
				<select class="form-control" value=${letterhead} onChange=${(e) => setLetterhead(e.target.value)}>
					<option value="">${__("Default")}</option>
					<option value=${NO_LETTERHEAD}>${__(NO_LETTERHEAD)}</option>
					${heads.map((h) => html`<option key=${h} value=${h}>${h}</option>`)}
				</select>
			</label>
			<button type="button" class="btn btn-default" onClick=${pdf}>${__("PDF")}</button>
			<button type="button" class="btn btn-primary" onClick=${print}>${__("Print")}</button>
		</div>
		<iframe ref=${frame} class="print-frame" title=${__("Print Preview")} src=${`/printview?${query}`}></iframe>
	</div>`;
}

export function openPrint(frm) {
	return openDialog({
		title: __("Print {0}", [frm.docname]),
		size: "large print-dialog",
		body: html`<${PrintPreview} doctype=${frm.doctype} name=${frm.docname} />`,
	});
}
