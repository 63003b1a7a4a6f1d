// /app/query-report/<name>: the script report view comes with the reports issue; until then the route
// exists and says where to find the report's data.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { Message } from "../ui/page.js";

export default function QueryReport({ route }) {
	return html`<${Message} title=${__(route.report)}
		message=${__("This report cannot be shown in the Desk yet.")} />`;
}
