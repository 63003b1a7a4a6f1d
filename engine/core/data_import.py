"""Data Import (business.md §3.1): the controller and Frappe's methods under
`fw.core.doctype.data_import.data_import.*`: `download_template`, `get_preview_from_template`,
`form_start_import` (a job on the `long` queue), `get_import_status` and `get_import_logs`. The work is
engine/dataimport/'s; this module reads the record and its file and checks the `import` right."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from engine import exceptions as exc
from engine import permissions
from engine.apps.whitelisted import whitelist
from engine.context import Context, run_in_unit_of_work
from engine.dataimport import importer, preview, template
from engine.dataimport.reader import Sheet, read_sheet
from engine.dataimport.values import DATE_FORMATS, ISO_DATE
from engine.documents.document import Document
from engine.documents.factory import get_doc
from engine.export.writer import Download, file_format
from engine.files import serving, storage
from engine.jobs.queue import enqueue
from engine.methods.args import json_arg, whole_arg
from engine.query.listing import count, get_list, get_value
from engine.translation import _

if TYPE_CHECKING:
    from engine.meta.schema import Meta

DATA_IMPORT = "Data Import"
PATH = "fw.core.doctype.data_import.data_import"
IMPORT_TYPES = (preview.INSERT, preview.UPDATE)


class DataImport(Document):
    reference_doctype: str
    import_type: str
    import_file: str | None
    template_options: str | None

    def validate(self) -> None:
        meta = self.ctx.meta(self.reference_doctype)  # DoesNotExistError for an unknown doctype
        if meta.istable or meta.issingle:
            raise exc.ValidationError(_("{0} cannot be imported: it is a single or child doctype",
                                        self.reference_doctype), field="reference_doctype")
        if self.template_options:
            options = json_arg(self.template_options, "template_options", kinds=(dict,))
            mapping = (options or {}).get("column_to_field_map", {})
            if not isinstance(mapping, dict):
                raise exc.ValidationError(_("template_options has the wrong shape"), field="template_options")
            if (options or {}).get("date_format", ISO_DATE) not in DATE_FORMATS:
                raise exc.ValidationError(_("The date format of template_options must be one of {0}",
                                            ", ".join(DATE_FORMATS)), field="template_options")


def template_options_of(doc: Document) -> dict[str, Any] | None:
    return json_arg(doc.get("template_options"), "template_options", kinds=(dict,))


async def site_date_format(ctx: Context) -> str:
    """System Settings' `date_format` (its default where never saved): the Desk shows dates so, and
    a file to import may write them so (as well as ISO), as in Frappe."""
    value = await get_value(ctx, "System Settings", None, "date_format")
    if not value:
        field = ctx.meta("System Settings").get_field("date_format")
        value = field.default if field is not None else None
    return str(value) if value in DATE_FORMATS else ISO_DATE


async def import_options(ctx: Context, template_options: dict[str, Any] | None) -> dict[str, Any]:
    """The user's `template_options` with the site's date format, unless the user chose one."""
    options = dict(template_options or {})
    if not options.get("date_format"):
        options["date_format"] = await site_date_format(ctx)
    return options


async def _import_doc(ctx: Context, name: str) -> Document:
    doc = await get_doc(ctx, DATA_IMPORT, str(name))
    await permissions.check_document(ctx, doc, "read")
    await permissions.check_doctype(ctx, doc.reference_doctype, "import")
    return doc


async def read_file(ctx: Context, url: str | None) -> tuple[str, bytes]:
    if not url:
        raise exc.ValidationError(_("Attach the file to import first"), field="import_file")
    served = await serving.resolve(ctx, url)
    return served.name, await storage.read(ctx, served.content.digest)


async def sheet_of(ctx: Context, url: str | None, *, in_process: bool = False) -> Sheet:
    """The attached file's sheet; `in_process`: an XLSX's rows parsed by a process of their own (the
    import's: engine/dataimport/xlsx_process.py)."""
    filename, content = await read_file(ctx, url)
    return read_sheet(filename, content, ctx.site.settings.max_file_size, in_process=in_process)


@whitelist(path=f"{PATH}.download_template")
async def download_template(ctx: Context, doctype: str, export_fields: Any = None,
                            export_records: str = "blank_template", export_filters: Any = None,
                            file_type: str = "CSV") -> Download:
    """Frappe's template: the header row of the chosen fields' labels, then the chosen records.
    `export_fields`: `{doctype: [fields], table: [fields]}` (or its JSON), `All` or `Mandatory`."""
    plain = isinstance(export_fields, str) and export_fields.strip().lower() in template.FIELD_CHOICES
    return await template.download_template(
        ctx, doctype, export_fields if plain else json_arg(export_fields, "export_fields", kinds=(dict, str)),
        export_records or "blank_template", json_arg(export_filters, "export_filters"), file_format(file_type))


@whitelist(path=f"{PATH}.get_preview_from_template")
async def get_preview_from_template(ctx: Context, data_import: str, import_file: str | None = None,
                                    template_options: Any = None) -> dict[str, Any]:
    """The columns, their fields, the first rows and every problem, without writing anything."""
    doc = await _import_doc(ctx, data_import)
    options = await import_options(ctx, json_arg(template_options, "template_options", kinds=(dict,))
                                   if template_options is not None else template_options_of(doc))
    sheet = await sheet_of(ctx, import_file or doc.get("import_file"))
    return await preview.build_preview(ctx, ctx.meta(doc.reference_doctype), sheet, options, doc.import_type)


async def _failed_rows(ctx: Context, name: str) -> dict[int, str]:
    """The failed documents' first rows, each to its log's name."""
    logs = await get_list(ctx, importer.LOG, fields=["name", "row_indexes"],
                          filters=[["data_import", "=", name], ["success", "=", 0]],
                          limit_page_length=0, ignore_permissions=True)
    return {orjson.loads(log["row_indexes"])[0]: log["name"] for log in logs if log.get("row_indexes")}


@whitelist(path=f"{PATH}.form_start_import", methods=["POST"])
async def form_start_import(ctx: Context, data_import: str) -> str | None:
    """Queue the import on `long`; a finished import with failed rows imports those rows again."""
    doc = await _import_doc(ctx, data_import)
    if doc.get("status") == "Success":
        raise exc.ValidationError(_("Data Import {0} is complete: every row was imported", doc.name))
    await permissions.check_document(ctx, doc, "write")
    await sheet_of(ctx, doc.get("import_file"))  # refuse a missing or unreadable file now, not in the job
    job = await enqueue(ctx, run_data_import, queue="long", job_name=f"Data Import {doc.name}",
                        data_import=str(doc.name), job_id=f"data_import::{doc.name}", deduplicate=True,
                        enqueue_after_commit=True)
    return job if isinstance(job, str) else None


async def run_data_import(ctx: Context, data_import: str) -> dict[str, Any]:
    """The job: import the file's documents (or, on a second run, those that failed) and record the status."""
    status, outcome = await run_import(ctx, data_import)
    return {"status": status, "succeeded": outcome.succeeded, "failed": outcome.failed_count}


async def run_import(ctx: Context, data_import: str, progress: importer.Progress | None = None
                     ) -> tuple[str, importer.Outcome]:
    """Import the file's documents (or, on a second run, those that failed), record the status and
    return it with the outcome; `progress` hears what the Desk's progress bar hears."""
    doc = await _import_doc(ctx, data_import)
    meta: Meta = ctx.meta(doc.reference_doctype)
    options = await import_options(ctx, template_options_of(doc))
    retry = doc.get("status") in ("Partial Success", "Error")
    only_rows = await _failed_rows(ctx, str(doc.name)) if retry else None
    run_options = importer.Options(
        data_import=str(doc.name), doctype=meta.name, import_type=doc.import_type,
        submit_after_import=bool(doc.get("submit_after_import")), mute_emails=bool(doc.get("mute_emails")),
        template_options=options, only_rows=only_rows)

    async def announce(current: int, count: int, outcome: importer.Outcome) -> None:
        await importer.announce(ctx, str(doc.name), current, count, outcome)
        if progress is not None:
            await progress(current, count, outcome)

    outcome = await importer.run(ctx, await sheet_of(ctx, doc.import_file, in_process=True), run_options, announce)
    status_ctx = Context(ctx.site, ctx.user, lang=ctx.lang)
    status = await run_in_unit_of_work(status_ctx, lambda: _finish(status_ctx, str(doc.name), outcome.total))
    await announce(outcome.rows, outcome.rows, outcome)  # (after the status)
    return status, outcome


async def _finish(ctx: Context, name: str, total: int) -> str:
    succeeded, failed = await _log_counts(ctx, name)
    status = "Success" if not failed else ("Partial Success" if succeeded else "Error")
    doc = await get_doc(ctx, DATA_IMPORT, name)
    await doc.db_set({"status": status, "payload_count": total})
    return status


@whitelist(path=f"{PATH}.get_import_status")
async def get_import_status(ctx: Context, data_import_name: str) -> dict[str, Any]:
    """Frappe's answer: the status, how many documents the file holds, how many went in and failed."""
    doc = await _import_doc(ctx, data_import_name)
    success, failed = await _log_counts(ctx, str(doc.name))
    return {"status": doc.get("status"), "total_records": doc.get("payload_count") or 0, "success": success,
            "failed": failed}


async def _log_counts(ctx: Context, name: str) -> tuple[int, int]:
    """How many of the import's logs say success, and how many failure (counted by the index)."""
    logs = [["data_import", "=", name]]
    succeeded = await count(ctx, importer.LOG, [*logs, ["success", "=", 1]], ignore_permissions=True)
    failed = await count(ctx, importer.LOG, [*logs, ["success", "=", 0]], ignore_permissions=True)
    return succeeded, failed


@whitelist(path=f"{PATH}.get_import_logs")
async def get_import_logs(ctx: Context, data_import: str, start: int = 0, page_length: int = 0,
                          failed_first: bool = False) -> list[dict[str, Any]]:
    """The per-row log: rows, success, the document made (a link in the Desk) and the messages; all of
    it by default (Frappe's answer), or a page of `page_length` from `start`, the failed rows first
    with `failed_first` (the Desk's: an import of 100,000 rows must not send them all to a browser)."""
    doc = await _import_doc(ctx, data_import)
    start, page_length = whole_arg(start, "start", 0), whole_arg(page_length, "page_length", 0)
    order = "success asc, log_index asc" if failed_first else "log_index asc"  # (typed by the whitelist)
    logs = await get_list(ctx, importer.LOG, fields=["log_index", "row_indexes", "success", "docname", "messages",
                                                     "exception"],
                          filters=[["data_import", "=", doc.name]], order_by=order, limit_start=start,
                          limit_page_length=page_length, ignore_permissions=True)
    for log in logs:
        log["row_indexes"] = orjson.loads(log["row_indexes"]) if log.get("row_indexes") else []
        log["messages"] = orjson.loads(log["messages"]) if log.get("messages") else []
    return logs
