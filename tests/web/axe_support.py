"""axe-core (vendored under tests/web/vendor/axe-core, MPL-2.0, with its licences: the tests run offline
and always on the same rules) run in a Playwright page: the serious and critical violations."""

from __future__ import annotations

import os

AXE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor", "axe-core", "axe.min.js")
BAD = ("serious", "critical")


def violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now (each with the first
    three offending elements). The context must be made with bypass_csp: the pages' CSP allows only
    this site's scripts, and axe comes from the test."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=AXE)
    found = page.evaluate(
        """async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').slice(0, 160)) }));
    }"""
    )
    return [v for v in found if v["impact"] in BAD]
