// Comments in the form's timeline (desk.md §4; engine/desk/comments.py has the rules): whoever may read the
// document comments on it; the author alone sees Edit and Delete on a comment (the server refuses
// anyone else). The box takes plain text, stored as HTML (Frappe's comments are HTML: a paragraph,
// lines broken with <br>); a comment is shown sanitised (controls/sanitize.js), never parsed as
// markup. Editing a comment written as richer HTML elsewhere keeps its text, not its formatting. `textToHtml` and `htmlToText` are pure (`node --test` covers them).
import { call } from "../../api.js";
import { boot } from "../../boot.js";
import { renderSanitized, sanitize } from "../../controls/sanitize.js";
import { formatDatetime, timeAgo } from "../../format.js";
import { __ } from "../../i18n.js";
import { html, useId, useState } from "../../lib/html.js";
import { confirmDialog } from "../../ui/confirm.js";
import { showError } from "../../ui/messages.js";
import { refreshDocinfo } from "./docinfo.js";

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const BLOCKS = new Set(["p", "div", "li", "h1", "h2", "h3", "h4", "blockquote", "pre", "tr", "ul", "ol", "table"]);

/** Typed text as a comment's HTML: escaped, lines broken with <br>, in one paragraph. Pure. */
export function textToHtml(text) {
	const escaped = String(text ?? "").trim().replace(/[&<>"']/g, (c) => ESCAPES[c]);
	return `<p>${escaped.split(/\r?\n/).join("<br>")}</p>`;
}

/** A comment's HTML as the text to edit (the inverse of textToHtml; other markup keeps its text). Pure. */
export function htmlToText(content) {
	let out = "";
	const walk = (nodes) => {
		for (const node of nodes) {
			if (typeof node === "string") out += node;
			else if (node.tag === "br") out += "\n";
			else {
				const block = BLOCKS.has(node.tag);
				if (block && out && !out.endsWith("\n")) out += "\n";
				walk(node.children);
				if (block && !out.endsWith("\n")) out += "\n";
			}
		}
	};
	walk(sanitize(content));
	return out.replace(/\n+$/, "");
}

async function send(frm, method, args) {
	try {
		await call(method, args);
		await refreshDocinfo(frm);
		return true;
	} catch (error) {
		showError(error);
		return false;
	}
}

/** The box under the timeline's heading: a text area and `Comment`. */
export function CommentBox({ frm }) {
	const id = useId();
	const [text, setText] = useState("");
	const [busy, setBusy] = useState(false);
	async function submit(event) {
		event.preventDefault();
		if (!text.trim() || busy) return;
		setBusy(true);
		const args = { reference_doctype: frm.doctype, reference_name: frm.docname, content: textToHtml(text) };
		if (await send(frm, "fw.desk.form.utils.add_comment", args)) setText("");
		setBusy(false);
	}
	return html`<form class="comment-box" onSubmit=${submit}>
		<label for=${id}>${__("New comment")}</label>
		<textarea id=${id} class="form-input" rows="2" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
		<button type="submit" class="btn btn-default btn-sm" disabled=${busy || !text.trim()}>${__("Add comment")}</button>
	</form>`;
}

function CommentEditor({ frm, comment, onDone }) {
	const id = useId();
	const [text, setText] = useState(() => htmlToText(comment.content));
	const [busy, setBusy] = useState(false);
	async function submit(event) {
		event.preventDefault();
		if (!text.trim() || busy) return;
		setBusy(true);
		const saved = await send(frm, "fw.desk.form.utils.update_comment", { name: comment.name, content: textToHtml(text) });
		setBusy(false);
		if (saved) onDone();
	}
	return html`<form class="comment-box" onSubmit=${submit}>
		<label for=${id} class="sr-only">${__("Comment text")}</label>
		<textarea id=${id} class="form-input" rows="3" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
		<div class="comment-actions">
			<button type="submit" class="btn btn-default btn-sm" disabled=${busy || !text.trim()}>${__("Update comment")}</button>
			<button type="button" class="btn btn-link btn-sm" onClick=${onDone}>${__("Discard")}</button>
		</div>
	</form>`;
}

/** One comment in the timeline: who, when, what; Edit and Delete for its author. */
export function CommentEntry({ frm, comment, fullName }) {
	const [editing, setEditing] = useState(false);
	const own = Boolean(comment.owner) && comment.owner === boot.user;
	const author = comment.comment_by || fullName(comment.owner);
	async function remove() {
		if (!(await confirmDialog(__("Delete this comment?"), { title: __("Delete comment") }))) return;
		await send(frm, "fw.desk.form.utils.delete_comment", { name: comment.name });
	}
	return html`<li class="timeline-comment">
		<p class="comment-head">${__("{0} commented", [author])} · <time datetime=${comment.creation} title=${formatDatetime(comment.creation)}>${timeAgo(comment.creation)}</time></p>
		${editing
			? html`<${CommentEditor} frm=${frm} comment=${comment} onDone=${() => setEditing(false)} />`
			: html`<div class="comment-content">${renderSanitized(sanitize(comment.content))}</div>`}
		${own && !editing
			? html`<div class="comment-actions">
					<button type="button" class="btn btn-link btn-sm" onClick=${() => setEditing(true)}>${__("Edit comment")}</button>
					<button type="button" class="btn btn-link btn-sm" onClick=${remove}>${__("Delete comment")}</button>
				</div>`
			: null}
	</li>`;
}
