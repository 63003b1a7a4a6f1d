// The report's rows as an XLSX workbook (Office Open XML, one sheet): the parts' XML here, zipped by
// the vendored fflate (loaded only when a user exports). Numbers of numeric columns are numbers;
// everything else is an inline string, never a formula (a value starting with "=" stays text).
// `xlsxParts` is pure (`node --test` covers it).
import { cellValue, isNumeric } from "./report_data.js";

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships";
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Text safe in XML: escaped, without the control characters XML 1.0 forbids. Pure. */
export function xmlText(value) {
	return String(value)
		.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
		.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. Pure. */
export function columnName(index) {
	let name = "";
	for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
	return name;
}

/** A sheet name Excel accepts: at most 31 characters, none of []:*?/\ . Pure. */
export function sheetName(title) {
	return String(title || "").replace(/[[\]:*?/\\]/g, " ").trim().slice(0, 31) || "Sheet1";
}

function cell(ref, value, numeric) {
	if (value === null || value === undefined || value === "") return "";
	if (numeric && typeof value !== "boolean" && value !== "" && Number.isFinite(Number(value))) {
		return `<c r="${ref}"><v>${Number(value)}</v></c>`;
	}
	const text = typeof value === "object" ? JSON.stringify(value) : String(value);
	return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(text)}</t></is></c>`;
}

function sheetXml(columns, rows, total) {
	const lines = [columns.map((c) => c.label || c.fieldname)];
	const numeric = columns.map((c) => isNumeric(c));
	const body = [];
	const add = (values, isHeader) => {
		const r = body.length + 1;
		const cells = values.map((value, i) => cell(`${columnName(i)}${r}`, value, !isHeader && numeric[i])).join("");
		body.push(`<row r="${r}">${cells}</row>`);
	};
	add(lines[0], true);
	for (const row of rows) add(columns.map((c, i) => cellValue(row, c, i)), false);
	if (total) add(columns.map((c, i) => total[i]), false);
	return `${XML_HEAD}<worksheet xmlns="${MAIN}"><sheetData>${body.join("")}</sheetData></worksheet>`;
}

/** The workbook's parts, `{path: xml}`: the columns' labels, then the rows as shown, the total last. Pure. */
export function xlsxParts(columns, rows, total = null, title = "") {
	return {
		"[Content_Types].xml": `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
			+ '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
			+ '<Default Extension="xml" ContentType="application/xml"/>'
			+ '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
			+ '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
			+ "</Types>",
		"_rels/.rels": `${XML_HEAD}<Relationships xmlns="${PKG_REL}">`
			+ `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>`
			+ `<sheet name="${xmlText(sheetName(title))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `${XML_HEAD}<Relationships xmlns="${PKG_REL}">`
			+ `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml": sheetXml(columns, rows, total),
	};
}

/** The workbook as bytes (fflate is loaded on first use). */
export async function toXlsx(columns, rows, total, title) {
	const { strToU8, zipSync } = await import("../../../vendor/fflate.js");
	const parts = xlsxParts(columns, rows, total, title);
	return zipSync(Object.fromEntries(Object.entries(parts).map(([path, xml]) => [path, strToU8(xml)])));
}
