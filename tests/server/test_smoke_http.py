import httpx

from tests.server.conftest import ApiUser


async def test_ping(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/method/ping")
    assert r.status_code == 200
    assert r.json() == {"message": "pong"}
    assert r.headers["x-frappe-request-id"]


async def test_create_get_list(client: httpx.AsyncClient, admin: ApiUser) -> None:
    r = await client.post("/api/resource/Test Customer", json={"customer_name": "Acme", "region": "N"},
                          headers=admin.token)
    assert r.status_code == 200, r.text
    assert r.json()["data"]["name"] == "Acme"
    r = await client.get("/api/resource/Test Customer/Acme", headers=admin.token)
    assert r.json()["data"]["region"] == "N"
    r = await client.get("/api/resource/Test Customer", params={"fields": '["name","region"]'}, headers=admin.token)
    assert r.json() == {"data": [{"name": "Acme", "region": "N"}]}
