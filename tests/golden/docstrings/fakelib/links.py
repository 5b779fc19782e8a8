def link_forms(flag=False):
    """
    Links, as doc-builder renders them: see [this
    paper](https://huggingface.co/papers/2202.00666) and the [loading
    guide](../loading) of the library, which is no page here. [`Loader`] links to its entry, [`~heads.load`] too,
    and [`GenerationSettings.missing`] to its class; `[code]` stays code, and so does
    [`load(path)`]. Placeholders stay text: <namespace>/<repo>[@<revision>].

    Args:
        flag (`bool`, *optional*, defaults to `False`):
            Whether to use the [wrapped
            link](https://example.org/a-long-path) in a parameter's description.
    """
