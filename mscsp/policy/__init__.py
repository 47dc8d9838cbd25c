"""What the command line and the web server decide alike, asked in one place.

Both doors answer the same questions about one request or command: may this estimator
stand in for an exact count, with how much of the time, what does the answer record
about it (:mod:`mscsp.policy.fallback`), and what does a stopped count say
(:mod:`mscsp.policy.limits`). The doors only parse what they were given, call these and
print or serialise the result. Which names a web request may use at all is the trust
boundary's (:mod:`mscsp.trust.names`), checked before any of this.
"""
