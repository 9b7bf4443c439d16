"""The shared static folder: the tile drawing module (service/http/static/tiles.js) is served offline."""

from __future__ import annotations


def test_tiles_module_is_served(tmp_path):
    """Given the app, when the tile module and its CSS are fetched, then they come from /static/."""
    from service.app import create_app

    client = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True}).test_client()
    js = client.get("/static/tiles.js")
    assert js.status_code == 200 and "TilefoldTiles" in js.get_data(as_text=True)
    assert "http" not in js.get_data(as_text=True).replace("http://www.w3.org/2000/svg", "")  # no CDN
    assert client.get("/static/tiles.css").status_code == 200
