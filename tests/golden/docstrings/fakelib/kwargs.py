class GenerationSettings:
    """
    Settings for `generate`, all passed as keyword arguments.

    Args:
        max_length (`int`, *optional*):
            *optional*, and the code's default.
        do_sample (`bool`):
            Not written *optional*: the code's default.
        top_k (`int`, *optional*, defaults to 50):
            The text's default, not the code's.
        beams (`int`):
            Two different defaults in the code: none shown.
        guidance (`float`, *optional*):
            *optional*, not popped: None.
    """

    def __init__(self, **kwargs):
        self.max_length = kwargs.pop("max_length", 20)
        self.do_sample = kwargs.pop("do_sample", False)
        self.top_k = kwargs.pop("top_k", None)
        self.beams = kwargs.pop("beams", 1) if kwargs.get("beams", 2) else 0
        self.guidance = kwargs.get("guidance_scale", None)
