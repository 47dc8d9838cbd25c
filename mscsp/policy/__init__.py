"""What the command line and the web server decide alike, asked in one place.

Both doors answer the same questions about one request or command: may this estimator
stand in for an exact count, with how much of the time, what does the answer record
about it (:mod:`mscsp.policy.fallback`), what does a stopped count say
(:mod:`mscsp.policy.limits`), and which names may a web request use at all: only built-in
ones, the trust boundary's allow-list (:mod:`mscsp.policy.names`), checked before any of
this. The doors only parse what they were given, call these and print or serialise the
result.
"""
