// The run's `chart` through frappe-charts (its ES-module build, vendored: the UMD build would replace
// `window.frappe`). Labels are escaped first (report_data.chartOptions): the library writes them as markup.
// The figure is named for assistive technology; the rows below carry the same data.
// The library's inline styles, which the CSP (`style-src 'self'`) would block, are rewritten when it is
// vendored (scripts/vendor_desk.py): its colours go through the CSSOM, its own CSS is in report.css.
import { Chart } from "../../../vendor/frappe-charts.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useRef } from "../../lib/html.js";
import { chartOptions } from "./report_data.js";

export function ReportChart({ chart, title }) {
	const holder = useRef(null);
	const options = chartOptions(chart);
	const key = JSON.stringify(options);
	useEffect(() => {
		const element = holder.current;
		if (!element || !options) return undefined;
		let instance = null;
		try {
			instance = new Chart(element, { ...options, title: "" });
		} catch (error) {
			console.error(error);
		}
		return () => {
			if (instance && instance.destroy) instance.destroy();
			element.replaceChildren();
		};
	}, [key]);
	if (!options) return null;
	return html`<figure class="report-chart" role="img" aria-label=${__("Chart of {0}", [title])}>
		<div class="report-chart-body" ref=${holder}></div>
	</figure>`;
}
