// The run's `chart` through frappe-charts (its ES-module build, vendored: the UMD build would replace
// `window.frappe`). Labels are escaped first (report_data.chartOptions): the library writes them as markup.
// The figure is named for assistive technology; the rows below carry the same data.
// The library writes its colours as style attributes, which the CSP (`style-src 'self'`) does not
// apply; `keepStyles` re-applies each one through the CSSOM, which the CSP allows.
import { Chart } from "../../../vendor/frappe-charts.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useRef } from "../../lib/html.js";
import { chartOptions } from "./report_data.js";

function applyStyle(element, applied) {
	const text = element.getAttribute("style");
	if (text === null || applied.get(element) === text) return;
	element.style.cssText = text;
	applied.set(element, element.getAttribute("style"));
}

/** Apply the chart's style attributes now and whenever it writes new ones; returns the stop function. */
function keepStyles(root) {
	const applied = new WeakMap();
	const sweep = (node) => {
		if (node.nodeType !== 1) return;
		if (node.hasAttribute("style")) applyStyle(node, applied);
		for (const child of node.querySelectorAll("[style]")) applyStyle(child, applied);
	};
	sweep(root);
	const observer = new MutationObserver((records) => {
		for (const record of records) {
			if (record.type === "attributes") applyStyle(record.target, applied);
			else for (const node of record.addedNodes) sweep(node);
		}
	});
	observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ["style"] });
	return () => observer.disconnect();
}

export function ReportChart({ chart, title }) {
	const holder = useRef(null);
	const options = chartOptions(chart);
	const key = JSON.stringify(options);
	useEffect(() => {
		const element = holder.current;
		if (!element || !options) return undefined;
		let instance = null;
		const stop = keepStyles(element);
		try {
			instance = new Chart(element, { ...options, title: "" });
		} catch (error) {
			console.error(error);
		}
		return () => {
			stop();
			if (instance && instance.destroy) instance.destroy();
			element.replaceChildren();
		};
	}, [key]);
	if (!options) return null;
	return html`<figure class="report-chart" role="img" aria-label=${__("Chart of {0}", [title])}>
		<div class="report-chart-body" ref=${holder}></div>
	</figure>`;
}
