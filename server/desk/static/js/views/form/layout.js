// A form's layout from its meta (desk.md §4): Tab Breaks make tabs (fields before the first one
// are the "Details" tab), Section Breaks sections (with their label, collapsible), Column Breaks
// columns. `buildLayout` is pure (`node --test` covers it); `FormLayout` renders it, showing only
// the sections and tabs that have a visible field.
import { __ } from "../../i18n.js";
import { html, useState } from "../../lib/html.js";
import { Field } from "./field.js";
import { fieldState } from "./field_rules.js";

export function buildLayout(fields) {
	const tabs = [];
	let tab = null;
	let section = null;
	const newTab = (df) => {
		tab = { fieldname: df ? df.fieldname : "__details", label: df ? df.label || "" : "Details", sections: [] };
		tabs.push(tab);
		section = null;
	};
	const newSection = (df) => {
		if (!tab) newTab(null);
		section = {
			fieldname: df ? df.fieldname : `${tab.fieldname}__first`,
			label: df ? df.label || "" : "",
			collapsible: Boolean(df && df.collapsible),
			description: df ? df.description || "" : "",
			df: df || null,
			columns: [[]],
		};
		tab.sections.push(section);
	};
	for (const df of fields || []) {
		if (df.fieldtype === "Tab Break") newTab(df);
		else if (df.fieldtype === "Section Break") newSection(df);
		else if (df.fieldtype === "Column Break") {
			if (!section) newSection(null);
			section.columns.push([]);
		} else {
			if (!section) newSection(null);
			section.columns[section.columns.length - 1].push(df);
		}
	}
	for (const t of tabs) {
		for (const s of t.sections) s.columns = s.columns.filter((column) => column.length);
		t.sections = t.sections.filter((s) => s.columns.length);
	}
	return tabs.filter((t) => t.sections.length);
}

function visibleFields(frm, section) {
	return section.columns.flat().filter((df) => fieldState(frm, frm.get_docfield(df.fieldname) || df).visible);
}

function Section({ frm, section }) {
	const [collapsed, setCollapsed] = useState(section.collapsible);
	if (section.df && !fieldState(frm, frm.get_docfield(section.fieldname) || section.df).visible) return null;
	if (!visibleFields(frm, section).length) return null;
	const headingId = `section-${section.fieldname}`;
	const label = section.label ? __(section.label) : "";
	return html`<section class="form-section" aria-labelledby=${label ? headingId : undefined}>
		${label
			? html`<h2 class="section-head" id=${headingId}>
					${section.collapsible
						? html`<button type="button" class="section-toggle" aria-expanded=${collapsed ? "false" : "true"}
								onClick=${() => setCollapsed(!collapsed)}>${label}</button>`
						: label}
				</h2>`
			: null}
		${section.description && !collapsed ? html`<p class="section-description">${__(section.description)}</p>` : null}
		${collapsed
			? null
			: html`<div class="section-body">
					${section.columns.map(
						(column, index) => html`<div class="form-column" key=${index}>
							${column.map((df) => html`<${Field} key=${df.fieldname} frm=${frm} fieldname=${df.fieldname} />`)}
						</div>`,
					)}
				</div>`}
	</section>`;
}

export function FormLayout({ frm, layout }) {
	const tabs = layout.filter((tab) => tab.sections.some((section) => visibleFields(frm, section).length));
	const [selected, setSelected] = useState(0);
	const index = Math.min(selected, Math.max(tabs.length - 1, 0));
	if (tabs.length <= 1) {
		return html`<div class="form-layout">
			${(tabs[0] ? tabs[0].sections : []).map((section) => html`<${Section} key=${section.fieldname} frm=${frm} section=${section} />`)}
		</div>`;
	}
	function onKeyDown(event) {
		if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
		event.preventDefault();
		const next = (index + (event.key === "ArrowRight" ? 1 : -1) + tabs.length) % tabs.length;
		setSelected(next);
		const button = event.currentTarget.querySelectorAll('[role="tab"]')[next];
		if (button) button.focus();
	}
	return html`<div class="form-layout">
		<div class="form-tabs" role="tablist" onKeyDown=${onKeyDown}>
			${tabs.map(
				(tab, i) => html`<button type="button" role="tab" id=${`tab-${tab.fieldname}`} aria-selected=${i === index ? "true" : "false"}
					aria-controls=${`panel-${tab.fieldname}`} tabindex=${i === index ? "0" : "-1"} class="form-tab"
					onClick=${() => setSelected(i)}>${__(tab.label || "Details")}</button>`,
			)}
		</div>
		${tabs.map(
			(tab, i) => html`<div role="tabpanel" id=${`panel-${tab.fieldname}`} aria-labelledby=${`tab-${tab.fieldname}`}
				hidden=${i !== index} key=${tab.fieldname}>
				${tab.sections.map((section) => html`<${Section} key=${section.fieldname} frm=${frm} section=${section} />`)}
			</div>`,
		)}
	</div>`;
}
