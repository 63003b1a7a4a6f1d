// `report_summary`: one card per entry, its value formatted by its `datatype`, its `indicator`
// colour (Blue, Green, Orange, Red, ...) as the card's accent.
import { colourName } from "../../indicators.js";
import { formatValue } from "../../format.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";

export function ReportSummary({ summary }) {
	const cards = (Array.isArray(summary) ? summary : []).filter((card) => card && typeof card === "object");
	if (!cards.length) return null;
	return html`<ul class="report-summary" aria-label=${__("Summary")}>
		${cards.map(
			(card, index) => html`<li key=${index} class=${`summary-card ${colourName(card.indicator)}`} data-indicator=${colourName(card.indicator)}>
				<span class="summary-label">${__(String(card.label ?? ""))}</span>
				<span class="summary-value">${formatValue(card.value, { fieldtype: card.datatype || "Data", precision: card.precision })}</span>
			</li>`,
		)}
	</ul>`;
}
