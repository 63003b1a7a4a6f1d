"""The app-facing surface of `import engine as fw` is pinned: changing it is a deliberate act."""

import engine as fw

EXPECTED = ["Context", "Document", "_", "aggregate", "apply_workflow", "coerce_value", "count", "delete_doc",
            "enqueue", "exceptions", "exists", "get_all", "get_cached_value", "get_doc", "get_list",
            "get_single_value", "get_value", "has_permission", "insert_many", "log_error", "new_doc",
            "publish_progress", "publish_realtime", "rename_field", "sendmail", "throw", "unit_of_work",
            "whitelist"]


def test_public_api_is_pinned_and_sorted() -> None:
    assert fw.__all__ == sorted(EXPECTED)


def test_every_name_resolves() -> None:
    for name in fw.__all__:
        assert getattr(fw, name) is not None, name
    assert issubclass(fw.exceptions.PermissionError, fw.exceptions.FwError)


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        fw.nonexistent  # noqa: B018
    except AttributeError as e:
        assert "nonexistent" in str(e)
    else:
        raise AssertionError("expected AttributeError")
