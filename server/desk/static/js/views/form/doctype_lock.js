// The DocType form without developer mode (business.md §7): a doctype's JSON is its definition, so
// the form is read-only, no Save is offered, and its intro says how to change a doctype instead
// (FW_DEVELOPER_MODE for the DocType editor; Customize Form on a live site). The server refuses
// such a save anyway (403).
import { boot } from "../../boot.js";
import { __ } from "../../i18n.js";

export function lockDefinitionForm(frm) {
	if (frm.doctype !== "DocType" || Number(boot.developer_mode)) return;
	frm.form_disabled = true;
	frm.save_disabled = true;
	const refresh = frm.refresh.bind(frm);
	frm.refresh = async () => {
		await refresh();
		frm.intro = {
			text: __("This DocType is read-only: DocTypes are edited in developer mode (FW_DEVELOPER_MODE=1). To change a form on this site, use Customize Form."),
			color: "yellow",
		};
	};
}
