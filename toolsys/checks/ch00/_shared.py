"""What exercises 0.1 and 0.2 both need: a real `openai` tool call to hand the student's code.

Built from the types `client.chat.completions.create` returns, so an answer that handles these
handles a real response.
"""

from __future__ import annotations

from typing import Any


def sdk_tool_call(call_id: str, name: str, arguments: str) -> Any:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall
    from openai.types.chat.chat_completion_message_function_tool_call import Function

    return ChatCompletionMessageFunctionToolCall(
        id=call_id, type="function", function=Function(name=name, arguments=arguments)
    )
