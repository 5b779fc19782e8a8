def block_forms(device=None):
    """
    Code, tips and alerts.

    <Tip>

    A tip with a [`Loader`] link.

    </Tip>

    <Tip warning={true}>
    A warning with no blank lines.
    </Tip>

    > [!NOTE]
    > A note, as an alert, whose last line
    continues it without its marker.

    Args:
        device (`str`, *optional*):
            Where to run. For example:
            ```py
            block_forms(device="cuda:0")
            ```
            <Tip>

            A tip inside a parameter.

            </Tip>

    Example:

    ```py
    >>> block_forms()
    ```
    """
