// The list's "Menu" (business.md §6): "Import" opens a new Data Import for the doctype, "Report View"
// the report view, "Export" the export dialog; each shown only with its right. Other list features add their items through `extra`.
import { hasRight, slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { newFormUrl } from "../../routes.js";
import { navigate, setRouteOptions } from "../../router.js";
import { Menu } from "../../ui/menu.js";
import { openExportDialog } from "./export_dialog.js";

export function ListMenu({ meta, chosen, filters, sort, selected, extra = [] }) {
	const doctype = meta.name;
	const items = [...extra];
	if (hasRight(doctype, "import") && hasRight("Data Import", "create")) {
		items.push({
			label: __("Import"),
			onClick: () => {
				setRouteOptions({ reference_doctype: doctype });
				navigate(newFormUrl("Data Import", slug));
			},
		});
	}
	if (hasRight(doctype, "report")) {
		items.push({ label: __("Report View"), onClick: () => navigate(`/app/${encodeURIComponent(slug(doctype))}/view/report`) });
	}
	if (hasRight(doctype, "export")) {
		items.push({ label: __("Export"), onClick: () => openExportDialog({ meta, chosen, filters, sort, selected: [...selected] }) });
	}
	return html`<${Menu} label=${__("Menu")} items=${items} />`;
}
