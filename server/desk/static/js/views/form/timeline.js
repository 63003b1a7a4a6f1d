// The form's timeline (desk.md §4): the document's versions (`docinfo.versions`, cut by the server to
// the fields the user may read) and its comments (`docinfo.comments`), newest first, with a box to
// add a comment. Every value is text (a comment's HTML is sanitised). `versionLines`,
// `timelineEntries` and `moreComments` are pure (`node --test` covers them).
import { formatDatetime, formatValue, timeAgo } from "../../format.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { fieldLabel, getField } from "../../meta.js";
import { CommentBox, CommentEntry } from "./comments.js";

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

/** Versions and comments in one list, newest first: `[{kind: "version"|"comment", key, at, item}]`.
 * Timestamps are the server's "YYYY-MM-DD HH:MM:SS.ffffff" text, so they sort as text. Pure. */
export function timelineEntries(versions = [], comments = []) {
	const entries = [
		...(versions || []).map((item) => ({ kind: "version", key: `v-${item.name}`, at: String(item.creation || ""), item })),
		...(comments || []).map((item) => ({ kind: "comment", key: `c-${item.name}`, at: String(item.creation || ""), item })),
	];
	return entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

/** A note when the server sent only the newest of the comments (`total_comments` counts them all),
 * else null. Pure. */
export function moreComments(docinfo) {
	const shown = Array.isArray(docinfo && docinfo.comments) ? docinfo.comments.length : 0;
	const total = Number(docinfo && docinfo.total_comments) || 0;
	return total > shown ? __("The newest {0} of {1} comments are shown", [shown, total]) : null;
}

export function Timeline({ frm, fullName }) {
	const docinfo = frm.docinfo || {};
	const entries = timelineEntries(docinfo.versions, docinfo.comments);
	const note = moreComments(docinfo);
	return html`<section class="sidebar-part" aria-labelledby="form-timeline">
		<h2 class="sidebar-head" id="form-timeline">${__("Activity")}</h2>
		<${CommentBox} frm=${frm} />
		${entries.length
			? html`<ol class="sidebar-list timeline" aria-labelledby="form-timeline">
					${entries.map((entry) =>
						entry.kind === "comment"
							? html`<${CommentEntry} key=${entry.key} frm=${frm} comment=${entry.item} fullName=${fullName} />`
							: html`<li key=${entry.key} class="timeline-version">
									${versionLines(entry.item, frm.meta, fullName).map((line) => html`<p>${line}</p>`)}
									<time datetime=${entry.item.creation} title=${formatDatetime(entry.item.creation)}>${timeAgo(entry.item.creation)}</time>
								</li>`,
					)}
				</ol>`
			: null}
		${note ? html`<p class="sidebar-empty">${note}</p>` : null}
	</section>`;
}
