"""Policy implementations shared by the profiles: each class implements one protocol of
``ctxviz.profiles.base`` from the numbers it is built with, and says why in plain words."""
