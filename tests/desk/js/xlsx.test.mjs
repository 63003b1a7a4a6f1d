// The report's XLSX export: the parts' XML (numbers as numbers, text as inline strings, never a
// formula, XML escaped) and the zipped workbook (fflate).
import assert from "node:assert/strict";
import test from "node:test";
import { strFromU8, unzipSync } from "../../../server/desk/static/vendor/fflate.js";
import { columnName, sheetName, toXlsx, xlsxParts, xmlText } from "../../../server/desk/static/js/views/report/xlsx.js";

const columns = [
	{ fieldname: "employee", label: "Employee", fieldtype: "Link" },
	{ fieldname: "value", label: "Value", fieldtype: "Float" },
];

test("cell names, sheet names and XML text", () => {
	assert.deepEqual([0, 25, 26, 27, 701, 702].map(columnName), ["A", "Z", "AA", "AB", "ZZ", "AAA"]);
	assert.equal(sheetName("Employee Score Report: a/b [x]?"), "Employee Score Report  a b  x");
	assert.equal(sheetName(""), "Sheet1");
	assert.equal(xmlText('a<b>&"c"\u0001'), "a&lt;b&gt;&amp;&quot;c&quot;");
});

test("the sheet holds the labels, the rows as shown and the total", () => {
	const rows = [{ employee: "=HYPERLINK(\"x\")", value: 91.5 }, { employee: "<b>Ann</b>", value: "" }];
	const sheet = xlsxParts(columns, rows, ["Total", 91.5], "Employee Score Report")["xl/worksheets/sheet1.xml"];
	assert.match(sheet, /<row r="1"><c r="A1" t="inlineStr"><is><t xml:space="preserve">Employee<\/t><\/is><\/c><c r="B1" t="inlineStr">/);
	assert.match(sheet, /<c r="A2" t="inlineStr"><is><t xml:space="preserve">=HYPERLINK\(&quot;x&quot;\)<\/t><\/is><\/c><c r="B2"><v>91.5<\/v><\/c>/);
	assert.match(sheet, /<row r="3"><c r="A3" t="inlineStr"><is><t xml:space="preserve">&lt;b&gt;Ann&lt;\/b&gt;<\/t><\/is><\/c><\/row>/);
	assert.match(sheet, /<row r="4"><c r="A4" t="inlineStr"><is><t xml:space="preserve">Total<\/t><\/is><\/c><c r="B4"><v>91.5<\/v><\/c><\/row>/);
	assert.ok(!sheet.includes("<f>"));
	// array rows (a report's list of lists) too
	const arrays = xlsxParts(columns, [["E-1", 3]])["xl/worksheets/sheet1.xml"];
	assert.match(arrays, /<c r="B2"><v>3<\/v><\/c>/);
});

test("the workbook is a zip of the parts", async () => {
	const bytes = await toXlsx(columns, [{ employee: "E-1", value: 1 }], null, "Report");
	const files = unzipSync(bytes);
	assert.deepEqual(Object.keys(files).sort(), [
		"[Content_Types].xml", "_rels/.rels", "xl/_rels/workbook.xml.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml"]);
	assert.match(strFromU8(files["xl/workbook.xml"]), /<sheet name="Report" sheetId="1" r:id="rId1"\/>/);
});
