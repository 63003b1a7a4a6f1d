// The report's filter bar: one control per filter definition (the form's controls, so a Link filter
// searches as the user types), labelled by the filter's label, required ones marked. A change of a
// value is committed on the control's change (blur, Enter, a choice), which runs the report again.
import "../../controls/index.js";
import { controlFor } from "../../controls/registry.js";
import { html, useEffect, useState } from "../../lib/html.js";
import { __ } from "../../i18n.js";

function FilterControl({ df, value, onCommit }) {
	const [draft, setDraft] = useState(value);
	useEffect(() => setDraft(value), [value]);
	const Control = controlFor(df.fieldtype);
	const field = { ...df, label: __(df.label || df.fieldname) };
	const commit = (next) => {
		setDraft(next);
		if ((next ?? "") !== (value ?? "")) onCommit(df.fieldname, next ?? "");
	};
	return html`<div class="report-filter">
		<${Control} frm=${null} df=${field} value=${draft} id=${`report-filter-${df.fieldname}`} readOnly=${false}
			onInput=${setDraft} onChange=${commit} />
	</div>`;
}

export function ReportFilters({ filters, values, onChange }) {
	if (!filters.length) return null;
	return html`<div class="report-filters" role="group" aria-label=${__("Filters")}>
		${filters.map((df) => html`<${FilterControl} key=${df.fieldname} df=${df} value=${values[df.fieldname]} onCommit=${onChange} />`)}
	</div>`;
}
