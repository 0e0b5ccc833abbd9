"""Model engines behind one small interface (:class:`base.Engine`)."""
