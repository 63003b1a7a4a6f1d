// `report_summary`: one card per entry, its value formatted by its `datatype`, its `indicator`
// colour (Blue, Green, Orange, Red, ...) as the card's accent.
import { colourName } from "../../indicators.js";
import { formatNumber, formatValue } from "../../format.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";

/** A card's value: by its datatype; a Float without a precision as the report rounded it. */
export function summaryText(card) {
	const bare = card.precision === undefined || card.precision === null;
	if (bare && (card.datatype === "Float" || card.datatype === "Percent") && Number.isFinite(Number(card.value))) {
		return formatNumber(card.value) + (card.datatype === "Percent" ? "%" : "");
	}
	return formatValue(card.value, { fieldtype: card.datatype || "Data", precision: card.precision });
}

export function ReportSummary({ summary }) {
	const cards = (Array.isArray(summary) ? summary : []).filter((card) => card && typeof card === "object");
	if (!cards.length) return null;
	return html`<ul class="report-summary" aria-label=${__("Summary")}>
		${cards.map(
			(card, index) => html`<li key=${index} class=${`summary-card ${colourName(card.indicator)}`} data-indicator=${colourName(card.indicator)}>
				<span class="summary-label">${__(String(card.label ?? ""))}</span>
				<span class="summary-value">${summaryText(card)}</span>
			</li>`,
		)}
	</ul>`;
}
