"""An XLSX sheet's rows read by a process of their own, for an import: parsing the sheet's XML is
Python work (about 25 µs a row, engine/dataimport/xlsx_rows.py) that, in a thread, would take the
interpreter from the import's own work; in a second process it runs beside it on another core.

The reader is `python -m engine.dataimport.xlsx_process PATH`: the file on its standard input, the
rows (after the header, which the caller has read) on its standard output as pickled chunks, then
None, or the text of its error. A plain child process rather than multiprocessing's: nothing of the
caller is imported again in it (multiprocessing's spawn re-imports the caller's main module). The
pipe's small buffer holds the reader back when the import is slower, so memory stays flat; it is
stopped when the rows are not wanted any more. Starting it costs a fraction of a second, so the
preview (a few rows, in a request) reads in its own process: this serves the import only."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Generator
from typing import Any, BinaryIO

from engine.dataimport.xlsx_rows import Book, sheet_rows

CHUNK = 500  # rows a message
STOP_WAIT = 5.0  # seconds a finished reader has to exit before it is killed


class ReaderFailed(Exception):
    """The reading process ended with an error (its text) or without a word (it died)."""


def rows_in_process(content: bytes, path: str) -> Generator[tuple[int, list[Any]], None, None]:
    """`sheet_rows` of the sheet at `path`, after its first row, read by a child process. Raises
    `ReaderFailed` when that process fails."""
    process = subprocess.Popen([sys.executable, "-m", __name__, path], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    finished = False
    try:
        try:
            process.stdin.write(content)
            process.stdin.close()
        except BrokenPipeError:
            pass  # (it ended already: its answer, or its silence, says why)
        while True:
            try:
                message = pickle.load(process.stdout)  # (our own child's output)
            except EOFError:
                raise ReaderFailed("the process reading the file ended without finishing") from None
            if message is None:
                finished = True
                return
            if isinstance(message, str):
                raise ReaderFailed(message)
            yield from message
    finally:
        process.stdout.close()
        if not finished:  # stopped early, or failed: no need to wait for it
            process.kill()
        try:
            process.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def send_rows(content: bytes, path: str, out: BinaryIO) -> None:
    """The child's work: the rows of the sheet at `path` after its first, in chunks, then None."""
    try:
        book = Book(content)
        try:
            rows = sheet_rows(book, path)
            next(rows, None)  # the header, which the caller has
            chunk: list[tuple[int, list[Any]]] = []
            for row in rows:
                chunk.append(row)
                if len(chunk) == CHUNK:
                    pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
                    chunk = []
            if chunk:
                pickle.dump(chunk, out, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(None, out)
        finally:
            book.close()
    except BrokenPipeError:  # the caller stopped reading: nothing to say
        return
    except Exception as error:
        pickle.dump(f"{type(error).__name__}: {error}", out)
    out.flush()


if __name__ == "__main__":
    send_rows(sys.stdin.buffer.read(), sys.argv[1], sys.stdout.buffer)
