"""The trust boundary in one place (see ``docs/security.md``).

The person at the keyboard may name programs, paths and imports; a web request or a file
from someone else may only choose among built-in names. This package holds what every
door uses to keep that line: parsers of untrusted text bounded in size and depth
(:mod:`mscsp.trust.numbers`, :mod:`mscsp.trust.jsonl`), file operations that never follow
a link they did not make, and escaping for each format free text is written into. The
allow-list of names a request may use reads the registries, so it stands above them, in
the policy layer (:mod:`mscsp.policy.names`).
"""
