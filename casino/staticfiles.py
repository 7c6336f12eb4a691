"""Static files in production: hashed names, and the pages' module imports rewritten to them.

``collectstatic`` writes each file under a name with its content's hash as well
(``js/poker.92e950969eb2.js``), which ``{% static %}`` then names, so a browser may
keep a file for good and still never mixes an old script with a new one. The pages'
scripts are ES modules that import each other by relative path (``./common.js``):
those imports are rewritten to the hashed names too.
"""

from __future__ import annotations

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage


class HashedStaticFiles(ManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
