class Loader:
    """Loads things; see [`load`]."""


def load(path, model=None, revision="main", *extra, mode="fast", strict=True, mapping=None, depth=None, **kwargs):
    """
    Loads a model.

    Args:
        path (`str` or `os.PathLike`):
            Required, positional, no default anywhere.
        model ([`Loader`] or [`~torch.nn.Module`], *optional*):
            Optional: the signature's default (None).
        revision (`str`, *optional*, defaults to `"main"`):
            The text and the signature agree.
        extra (sequence of positional arguments, *optional*):
            A type that is prose, and the signature's default for `*extra`.
        mode (`str`, *optional*, defaults to `"slow"`): The text says otherwise than the signature: the text wins.
        strict(`bool`, *optional*, defaults to `True`):
            No space before the parenthesis.
        mapping: (`dict[str, str]`, *optional*):
            A colon before the parenthesis.
        depth (`tuple(int, float)`, *optional*)):
            A parenthesis too many; the type's own parentheses stay.
        cache_dir (`Union[str, os.PathLike]`, *optional*):
            Through `**kwargs`, *optional*, no default written: None, by doc-builder's convention.
        retries (`int`, *optional*, defaults to 3):
            Through `**kwargs`, with a default written.
        layout (`dict` (`{"a": 1}`), *optional*):
            A type with a colon cannot be given to griffe: no type.
        timeout (*optional*, defaults to `model.config.timeout`):
            No type, a default that is an expression.
        plain (int): A Google head stays as it is.

    Returns:
        `Loader`: the loaded model.
    """
