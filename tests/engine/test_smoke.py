from engine.context import Context
from engine.documents.factory import get_doc, new_doc


async def test_insert_and_get_round_trip(ctx: Context) -> None:
    doc = new_doc(ctx, "Test Note", title="Hello", count="3", due="2026-01-02")
    await doc.insert()
    loaded = await get_doc(ctx, "Test Note", doc.name)
    assert loaded.title == "Hello"
    assert loaded.count == 3
    assert loaded.due == "2026-01-02"
    assert loaded.owner == "Administrator"
